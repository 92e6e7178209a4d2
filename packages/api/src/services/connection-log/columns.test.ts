/**
 * A compact row's columns are named once, in core (LOG_ROW_COLUMNS): the server's insert reads each
 * value at its column's position and stores the plain ones by name. Adding a column is an entry in
 * that list and a migration: here a scratch layout adds `handshakeMs` after the last column and the
 * "migration" adds handshake_ms, and the insert stores it without a change of its own (as it
 * stores connectMs, the last column added so).
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  CONNECTION_CSV_COLUMNS,
  gatewayLogRow,
  STATEMENT_CSV_COLUMNS,
  gatewayLogSession,
  LOG_ROW,
  LOG_ROW_COLUMNS,
  LOG_ROW_STORED,
  LOG_SESSION,
  LOG_SESSION_FIELDS,
  logSessionEntry,
  type GatewayLogRow,
  type GatewayLogSession,
} from '@proxyhub/core';
import { fileDatabase, userWithAccount } from '../../../test/fixtures';
import { allConnections, connectionsCsvText, listConnections } from './reads';
import { ensureConnectionPartitions, LOG_ROW_LAYOUT, reportConnections, reportDays, storeConnections, type LogRowLayout } from './store';

const database = fileDatabase();

describe("a compact row's columns", () => {
  it('are one list in core: positions, the check and the stored types agree with it', () => {
    expect(LOG_ROW_COLUMNS.map((c) => LOG_ROW[c])).toEqual(LOG_ROW_COLUMNS.map((_, i) => i));
    expect(LOG_ROW_LAYOUT.columns).toBe(LOG_ROW_COLUMNS);
    expect(Object.keys(LOG_ROW_STORED)).toEqual([...LOG_ROW_COLUMNS]);
    const row: GatewayLogRow = [
      1_700_000_000_000,
      5,
      'http',
      'example.com:80',
      1,
      10,
      20,
      'ok',
      '',
      '203.0.113.9',
      '6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e',
      42,
      18,
    ];
    expect(gatewayLogRow.parse(row)).toEqual(row);
    // A connection that reached no target has a null connect time.
    expect(gatewayLogRow.parse([...row.slice(0, -1), null])).toEqual([...row.slice(0, -1), null]);
    // One value too many is refused; the last columns (upstreamId, seq, connectMs) may be missing, as
    // gateways of the versions before them send their rows; one more missing is refused.
    expect(gatewayLogRow.safeParse([...row, 1]).success).toBe(false);
    expect(gatewayLogRow.safeParse(row.slice(0, -1)).success).toBe(true);
    expect(gatewayLogRow.safeParse(row.slice(0, -2)).success).toBe(true);
    expect(gatewayLogRow.safeParse(row.slice(0, -3)).success).toBe(true);
    expect(gatewayLogRow.safeParse(row.slice(0, -4)).success).toBe(false);
  });

  it('a column added to the list (and to the table by a migration) is stored by the same insert', async () => {
    const now = Date.now();
    const u = await userWithAccount(database.db);
    const layout: LogRowLayout = { columns: [...LOG_ROW_COLUMNS, 'handshakeMs'], stored: { ...LOG_ROW_STORED, handshakeMs: 'bigint' } };
    await database.db.execute(sql.raw('ALTER TABLE connection_log ADD COLUMN handshake_ms bigint'));
    try {
      const sessions: GatewayLogSession[] = [[1, 'abc123', u.proxyAccountId, 'US', '', '', 'rotating', 0]];
      const row = [now - 1000, 250, 'connect', 'example.com:443', 1, 120, 1200, 'ok', '', '203.0.113.7', '', 5, 12, 37];
      // The report as the server reads it (the scratch column rides at the end of each row).
      const records = { ...reportConnections({ logSessions: sessions, logRows: [] }), logRows: [row as unknown as GatewayLogRow] };
      const { days, oldest } = reportDays(records, now, 30);
      await ensureConnectionPartitions(database.db, days);
      expect(await database.db.transaction((tx) => storeConnections(tx, 'gw-columns', records, oldest, layout))).toBe(1);
      const stored = await database.db.execute(
        sql.raw(`select handshake_ms::text as c, connect_ms as ms, bytes_up::text as up, exit_ip from connection_log where gateway_id = 'gw-columns'`),
      );
      const rows = (Array.isArray(stored) ? stored : (stored as { rows: unknown[] }).rows) as Array<{ c: string; ms: number; up: string; exit_ip: string }>;
      expect(rows).toEqual([{ c: '37', ms: 12, up: '120', exit_ip: '203.0.113.7' }]);
      const page = await listConnections(database.db, u.userId, {});
      expect(page.connections.map((c) => [c.target, c.bytesDown, c.billedBytes, c.connectMs])).toEqual([['example.com:443', '1200', '1320', 12]]);
    } finally {
      await database.db.execute(sql.raw('ALTER TABLE connection_log DROP COLUMN handshake_ms'));
    }
  });

  it("a session's entry is one list in core: the writer's builder, the check and the insert read its fields by name", async () => {
    expect(LOG_SESSION_FIELDS.map((c) => LOG_SESSION[c])).toEqual(LOG_SESSION_FIELDS.map((_, i) => i));
    const u = await userWithAccount(database.db);
    const entry = logSessionEntry({
      sessionKey: 7,
      proxyUserId: 'xyz789',
      proxyAccountId: u.proxyAccountId,
      country: 'DE',
      state: 'BE',
      city: 'BERLIN',
      session: 'TOKEN123',
      lineTest: 1,
      run: '0123456789ab4def8123',
      zip: '10115',
      asn: '3320',
    });
    expect(gatewayLogSession.parse(entry)).toEqual(entry);
    expect(entry[LOG_SESSION.proxyAccountId]).toBe(u.proxyAccountId);
    const now = Date.now();
    const row: GatewayLogRow = [now - 500, 10, 'socks5', 'example.org:443', 7, 30, 40, 'ok', '', ''];
    const records = reportConnections({ logSessions: [entry], logRows: [row] });
    const { days, oldest } = reportDays(records, now, 30);
    await ensureConnectionPartitions(database.db, days);
    expect(await database.db.transaction((tx) => storeConnections(tx, 'gw-sessions', records, oldest))).toBe(1);
    const [stored] = (await listConnections(database.db, u.userId, {})).connections;
    expect(stored).toMatchObject({
      proxyUserId: 'xyz789',
      country: 'DE',
      state: 'BE',
      city: 'BERLIN',
      zip: '10115',
      asn: '3320',
      session: 'TOKEN123',
      billedBytes: '0',
    });
  });

  it("stores '' for the ZIP and ASN of a session entry without them (a gateway of the version before them)", async () => {
    const now = Date.now();
    const u = await userWithAccount(database.db);
    const older = gatewayLogSession.parse([3, 'old123', u.proxyAccountId, 'US', '', '', 'rotating', 0]);
    const records = reportConnections({ logSessions: [older], logRows: [[now - 500, 10, 'http', 'older.example:80', 3, 1, 2, 'ok', '', '']] });
    const { days, oldest } = reportDays(records, now, 30);
    await ensureConnectionPartitions(database.db, days);
    expect(await database.db.transaction((tx) => storeConnections(tx, 'gw-older-session', records, oldest))).toBe(1);
    const [stored] = (await listConnections(database.db, u.userId, {})).connections;
    expect(stored).toMatchObject({ target: 'older.example:80', zip: '', asn: '' });
    // One field too many is still refused.
    expect(gatewayLogSession.safeParse([3, 'old123', u.proxyAccountId, 'US', '', '', 'rotating', 0, '', '', 'x']).success).toBe(false);
  });

  it("the reads answer core's row columns, in order, and the CSV (a statement's digest) has them as its header", async () => {
    const now = Date.now();
    const u = await userWithAccount(database.db);
    const sessions: GatewayLogSession[] = [[1, 'abc123', u.proxyAccountId, 'US', '', '', 'rotating', 0]];
    const records = reportConnections({ logSessions: sessions, logRows: [[now - 1000, 5, 'http', 'example.net:80', 1, 1, 2, 'ok', '', '']] });
    const { days, oldest } = reportDays(records, now, 30);
    await ensureConnectionPartitions(database.db, days);
    await database.db.transaction((tx) => storeConnections(tx, 'gw-reads', records, oldest));
    const [listed] = (await listConnections(database.db, u.userId, {})).connections;
    expect(Object.keys(listed!)).toEqual([...CONNECTION_CSV_COLUMNS]);
    const all = await allConnections(database.db, u.userId, {});
    expect(Object.keys(all[0]!)).toEqual([...CONNECTION_CSV_COLUMNS]);
    expect(connectionsCsvText(all).split('\n')[0]).toBe(CONNECTION_CSV_COLUMNS.join(','));
    // A signed statement's CSV keeps the columns it was signed with: connectMs came after statements.
    expect(connectionsCsvText(all, STATEMENT_CSV_COLUMNS).split('\n')[0]).toBe(
      'id,startedAt,endedAt,protocol,target,proxyUserId,proxyAccountId,country,state,city,session,zip,asn,bytesUp,bytesDown,billedBytes,outcome,reason',
    );
  });

  it('stores a connect time, null for a refused row and for a row without the column (a gateway of the version before it)', async () => {
    const now = Date.now();
    const u = await userWithAccount(database.db);
    const sessions: GatewayLogSession[] = [[1, 'abc123', u.proxyAccountId, 'US', '', '', 'rotating', 0]];
    const rows = [
      gatewayLogRow.parse([now - 3000, 5, 'connect', 'a.example:443', 1, 1, 2, 'ok', '', '', '', 1, 48]),
      gatewayLogRow.parse([now - 2000, 0, 'connect', 'b.example:443', 1, 0, 0, 'refused', 'no', '', '', 2, null]),
      gatewayLogRow.parse([now - 1000, 5, 'connect', 'c.example:443', 1, 3, 4, 'ok', '', '', '', 3]),
    ];
    const records = reportConnections({ logSessions: sessions, logRows: rows });
    const { days, oldest } = reportDays(records, now, 30);
    await ensureConnectionPartitions(database.db, days);
    expect(await database.db.transaction((tx) => storeConnections(tx, 'gw-connect-ms', records, oldest))).toBe(3);
    const listed = (await listConnections(database.db, u.userId, {})).connections;
    expect(listed.map((c) => [c.target, c.connectMs])).toEqual([
      ['c.example:443', null],
      ['b.example:443', null],
      ['a.example:443', 48],
    ]);
    expect(connectionsCsvText(listed).split('\n')[3]).toMatch(/,48$/);
  });

  it("stores the upstream a row names, and '' for a row without the column (a gateway of the version before it)", async () => {
    const now = Date.now();
    const u = await userWithAccount(database.db);
    const upstream = '6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e';
    const sessions: GatewayLogSession[] = [[1, 'abc123', u.proxyAccountId, 'US', '', '', 'rotating', 0]];
    const rows = [
      gatewayLogRow.parse([now - 1000, 5, 'connect', 'via-pool.example:443', 1, 1, 2, 'ok', '', '', upstream]),
      gatewayLogRow.parse([now - 1000, 5, 'connect', 'older-gateway.example:443', 1, 3, 4, 'ok', '', '']),
    ];
    const records = reportConnections({ logSessions: sessions, logRows: rows });
    const { days, oldest } = reportDays(records, now, 30);
    await ensureConnectionPartitions(database.db, days);
    expect(await database.db.transaction((tx) => storeConnections(tx, 'gw-upstream', records, oldest))).toBe(2);
    const stored = await database.db.execute(sql.raw(`select target, upstream_id from connection_log where gateway_id = 'gw-upstream' order by target`));
    expect(Array.isArray(stored) ? stored : (stored as { rows: unknown[] }).rows).toEqual([
      { target: 'older-gateway.example:443', upstream_id: '' },
      { target: 'via-pool.example:443', upstream_id: upstream },
    ]);
  });
});
