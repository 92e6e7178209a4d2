import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { SecretBox } from '@proxyhub/auth';
import { describe, expect, it } from 'vitest';
import { CONNECTION_ROW_FIELDS, connectionRowOf, gatewayReportInput, type ConnectionTuple, type GatewayLogRow, type GatewayLogSession } from '@proxyhub/core';
import { proxyAccounts } from '@proxyhub/db';
import { fileDatabase, MiB, userWithAccount } from '../../../test/fixtures';
import { createBatch } from '../accounts/batches';
import { connectionBreakdown, listConnections } from './reads';
import { ensureConnectionPartitions, maintainConnectionLog, reportConnections, reportDays, storeConnections, type ReportConnections } from './store';

const database = fileDatabase();
const secrets = new SecretBox('service-test-secret-0123456789abcdef');
const DAY = 86_400_000;

function record(proxyAccountId: string, startedAt: number, billed = 100, target = 'example.com:443', connectMs?: number, country = 'US'): ConnectionTuple {
  return connectionRowOf({
    id: randomUUID(),
    startedAt,
    endedAt: startedAt + 1000,
    protocol: 'connect',
    target,
    proxyUserId: 'abc123',
    proxyAccountId,
    country,
    state: '',
    city: '',
    session: 'rotating',
    bytesUp: 0,
    bytesDown: billed,
    billedBytes: billed,
    outcome: 'ok',
    reason: '',
    exitIp: '',
    ...(connectMs !== undefined && { connectMs }),
  });
}

/** Rows of named fields' values, what gateways sent before compact rows. */
const v1 = (rows: ConnectionTuple[]): ReportConnections => ({ rows, logSessions: [], logRows: [] });

async function partitions(): Promise<string[]> {
  const r: unknown = await database.db.execute(
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent where p.relname = 'connection_log' order by 1`,
  );
  return (Array.isArray(r) ? (r as Array<{ name: string }>) : (r as { rows: Array<{ name: string }> }).rows).map((x) => x.name);
}

describe('connection log storage', () => {
  it('keeps whole days: partitions are made as rows arrive, days past the retention are dropped whole and not stored again', async () => {
    const u = await userWithAccount(database.db, 10n * MiB);
    const now = Date.parse('2026-03-31T12:00:00Z');
    const records = [record(u.proxyAccountId, now - 40 * DAY), record(u.proxyAccountId, now - 2 * DAY), record(u.proxyAccountId, now)];
    const { days, oldest, earliest } = reportDays(v1(records), now, 30);
    expect([...days].sort()).toEqual(['2026-03-29', '2026-03-31']);
    expect(oldest).toBe('2026-03-02');
    expect(earliest).toBe(now - 40 * DAY);
    await ensureConnectionPartitions(database.db, days);
    expect(await database.db.transaction((tx) => storeConnections(tx, 'gw', v1(records), oldest))).toBe(2);
    // Stored once: the same records again (a resent report) add nothing, and the report's
    // transaction goes on (its usage is applied after them).
    const again = await database.db.transaction(async (tx) => {
      const n = await storeConnections(tx, 'gw', v1(records), oldest);
      await tx.execute(sql`select 1`);
      return n;
    });
    expect(again).toBe(0);
    const page = await listConnections(database.db, u.userId, { from: '2026-01-01', to: '2026-04-02' });
    expect(page.connections.map((c) => c.startedAt)).toEqual([new Date(now).toISOString(), new Date(now - 2 * DAY).toISOString()]);

    const { dropped } = await maintainConnectionLog(database.db, now + 29 * DAY, 30);
    expect(dropped).toEqual(['connection_log_20260329']);
    expect(await partitions()).toEqual(['connection_log_20260331', 'connection_log_20260429', 'connection_log_20260430']);
    const after = await listConnections(database.db, u.userId, { from: '2026-01-01', to: '2026-05-02' });
    expect(after.connections).toHaveLength(1);
  });

  it("stores a report's new rows beside ids it has already, and skips rows of unknown or unclaimed proxy accounts", async () => {
    const u = await userWithAccount(database.db, 10n * MiB);
    const now = Date.now();
    const first = [record(u.proxyAccountId, now - 1000)];
    const { days, oldest } = reportDays(v1(first), now, 30);
    await ensureConnectionPartitions(database.db, days);
    expect(await database.db.transaction((tx) => storeConnections(tx, 'gw', v1(first), oldest))).toBe(1);
    // A batch's account no user has claimed yet: its records have no one to show them to.
    const batch = await database.db.transaction((tx) => createBatch(tx, secrets, { accounts: 1, creditsGB: 1, usageType: 'shop_proxy_regular' }));
    const [unclaimed] = await database.db
      .select({ id: proxyAccounts.id })
      .from(proxyAccounts)
      .where(eq(proxyAccounts.proxyUserId, batch.accounts[0]!.proxyUserId));
    const mixed = [...first, record(u.proxyAccountId, now - 500), record(randomUUID(), now - 400), record(unclaimed!.id, now - 300)];
    expect(await database.db.transaction((tx) => storeConnections(tx, 'gw', v1(mixed), oldest))).toBe(1);
    const page = await listConnections(database.db, u.userId, {});
    expect(page.connections.map((c) => c.startedAt)).toEqual([new Date(now - 500).toISOString(), new Date(now - 1000).toISOString()]);
  });

  it('stores compact rows with their sessions: ids made, billed bytes up + down (0 for a line test), rows of unknown keys or unclaimed accounts skipped', async () => {
    const u = await userWithAccount(database.db, 10n * MiB);
    const now = Date.now();
    const batch = await database.db.transaction((tx) => createBatch(tx, secrets, { accounts: 1, creditsGB: 1, usageType: 'shop_proxy_regular' }));
    const [unclaimed] = await database.db
      .select({ id: proxyAccounts.id })
      .from(proxyAccounts)
      .where(eq(proxyAccounts.proxyUserId, batch.accounts[0]!.proxyUserId));
    const sessions: GatewayLogSession[] = [
      [1, 'abc123', u.proxyAccountId, 'US', 'CA', 'LOSANGELES', 'rotating', 0],
      [2, 'abc123', u.proxyAccountId, 'DE', '', '', 's3ss10n', 1],
      [3, 'zzz999', unclaimed!.id, 'US', '', '', 'rotating', 0],
      // A session named again by a later batch of the same report.
      [1, 'abc123', u.proxyAccountId, 'US', 'CA', 'LOSANGELES', 'rotating', 0],
    ];
    const rows: GatewayLogRow[] = [
      [now - 3000, 250, 'http', 'example.com:80', 1, 120, 1200, 'ok', '', '203.0.113.7'],
      [now - 2000, 0, 'connect', 'down.example.com:443', 1, 0, 0, 'target_unreachable', 'connect ECONNREFUSED', ''],
      [now - 1000, 40, 'http', 'api.ipify.org:80', 2, 80, 300, 'ok', 'line test, not billed', '203.0.113.7'],
      [now - 900, 10, 'http', 'example.com:80', 3, 1, 1, 'ok', '', ''],
      [now - 800, 10, 'http', 'example.com:80', 9, 1, 1, 'ok', '', ''],
    ];
    const input = gatewayReportInput.parse({ gatewayId: 'gw', seq: 1, items: [], logSessions: sessions, logRows: rows });
    const records = reportConnections(input);
    const { days, oldest, earliest } = reportDays(records, now, 30);
    expect(earliest).toBe(now - 3000);
    await ensureConnectionPartitions(database.db, days);
    expect(await database.db.transaction((tx) => storeConnections(tx, 'gw', records, oldest))).toBe(3);
    const page = await listConnections(database.db, u.userId, {});
    expect(page.connections.map(({ id, ...c }) => [/^[0-9a-f-]{36}$/.test(id), c])).toEqual([
      [
        true,
        {
          startedAt: new Date(now - 1000).toISOString(),
          endedAt: new Date(now - 960).toISOString(),
          protocol: 'http',
          target: 'api.ipify.org:80',
          proxyUserId: 'abc123',
          proxyAccountId: u.proxyAccountId,
          country: 'DE',
          state: '',
          city: '',
          session: 's3ss10n',
          zip: '',
          asn: '',
          bytesUp: '80',
          bytesDown: '300',
          billedBytes: '0',
          outcome: 'ok',
          reason: 'line test, not billed',
          connectMs: null,
        },
      ],
      [
        true,
        expect.objectContaining({
          startedAt: new Date(now - 2000).toISOString(),
          endedAt: new Date(now - 2000).toISOString(),
          billedBytes: '0',
          outcome: 'target_unreachable',
        }),
      ],
      [
        true,
        expect.objectContaining({
          endedAt: new Date(now - 2750).toISOString(),
          country: 'US',
          state: 'CA',
          city: 'LOSANGELES',
          session: 'rotating',
          bytesUp: '120',
          bytesDown: '1200',
          billedBytes: '1320',
        }),
      ],
    ]);
    expect(new Set(page.connections.map((c) => c.id)).size).toBe(3);
    // The latest start and the longest duration a report may carry are stored, not an error.
    const latest = Date.UTC(9000, 0, 1) - 1;
    const far = reportConnections(
      gatewayReportInput.parse({
        gatewayId: 'gw',
        seq: 3,
        items: [],
        logSessions: [sessions[0]],
        logRows: [[latest, 100 * 366 * 86_400_000, 'http', 'far.example:80', 1, 1, 1, 'ok', '', '']],
      }),
    );
    const farDays = reportDays(far, now, 30);
    await ensureConnectionPartitions(database.db, farDays.days);
    expect(await database.db.transaction((tx) => storeConnections(tx, 'gw', far, farDays.oldest))).toBe(1);
    // A bad compact row refuses the report as a bad row of the older form does.
    expect(gatewayReportInput.safeParse({ gatewayId: 'gw', seq: 2, items: [], logSessions: sessions, logRows: [[...rows[0]!.slice(0, 9)]] }).success).toBe(
      false,
    );
    expect(
      gatewayReportInput.safeParse({
        gatewayId: 'gw',
        seq: 2,
        items: [],
        logSessions: [[1, 'abc', u.proxyAccountId, 'US', '', '', 'rotating', 2]],
        logRows: [],
      }).success,
    ).toBe(false);
  });

  it('pages a target filter newest first across its ports, behind any number of newer records of other hosts', async () => {
    const u = await userWithAccount(database.db, 10n * MiB);
    const now = Date.now();
    const rows: ConnectionTuple[] = [];
    // The newest records all went to another host (a burst), the filtered host's are older.
    for (let i = 0; i < 60; i++) rows.push(record(u.proxyAccountId, now - 1000 - i, 1, 'busy.example.com:443'));
    for (let i = 0; i < 9; i++) rows.push(record(u.proxyAccountId, now - 5000 - i * 10, 1, 'shop.example.com:443'));
    for (let i = 0; i < 8; i++) rows.push(record(u.proxyAccountId, now - 5005 - i * 10, 1, 'shop.example.com:8443'));
    // Two at the same millisecond (ordered by id), and a host the prefix also matches.
    rows.push(record(u.proxyAccountId, now - 5000, 1, 'shop.example.com:8443'), record(u.proxyAccountId, now - 6000, 1, 'shop.example.com.cdn.net:443'));
    // Ten hosts under one prefix: more than are read one by one.
    for (let i = 0; i < 10; i++) rows.push(record(u.proxyAccountId, now - 7000 - i, 1, `t${i}.example.net:443`));
    const { days, oldest } = reportDays(v1(rows), now, 30);
    await ensureConnectionPartitions(database.db, days);
    await database.db.transaction((tx) => storeConnections(tx, 'gw', v1(rows), oldest));

    const idAt = CONNECTION_ROW_FIELDS.indexOf('id');
    const startAt = CONNECTION_ROW_FIELDS.indexOf('startedAt');
    const targetAt = CONNECTION_ROW_FIELDS.indexOf('target');
    const expected = (prefix: string) =>
      rows
        .filter((r) => String(r[targetAt]).startsWith(prefix))
        .sort((a, b) => Number(b[startAt]) - Number(a[startAt]) || (a[idAt]! < b[idAt]! ? 1 : -1))
        .map((r) => r[idAt]);
    const paged = async (target: string, pageSize: number) => {
      const ids: unknown[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await listConnections(database.db, u.userId, { target, pageSize, ...(cursor ? { cursor } : {}) });
        ids.push(...page.connections.map((c) => c.id));
        if (!page.nextCursor) return ids;
        cursor = page.nextCursor;
      }
    };
    expect(await paged('shop.example.com', 5)).toEqual(expected('shop.example.com'));
    expect(await paged('SHOP.example.com:84', 3)).toEqual(expected('shop.example.com:84'));
    expect(await paged('t', 4)).toEqual(expected('t'));
    expect(await paged('nothing.example.org', 5)).toEqual([]);
  });

  it('sums the range by host (ports merged, the 100 largest) with success rate and median connect time, and counts connections by outcome', async () => {
    const u = await userWithAccount(database.db, 10n * MiB);
    const now = Date.now();
    const outcomeAt = CONNECTION_ROW_FIELDS.indexOf('outcome');
    const failed = (r: ConnectionTuple, outcome: string) => {
      (r as unknown[])[outcomeAt] = outcome;
      return r;
    };
    const rows: ConnectionTuple[] = [
      // a.example.com: connect times 10, 20, 30 on one port and 41 on another: the median is of all four, 25.
      ...[1, 2, 3].map((i) => record(u.proxyAccountId, now - i, 1000, 'a.example.com:443', i * 10)),
      record(u.proxyAccountId, now - 4, 500, 'a.example.com:8443', 41),
      record(u.proxyAccountId, now - 5, 2000, '[2001:db8::1]:443', 7, 'DE'),
      // down.example.com: reached once of three (a connection that timed out after connecting), 1 in 3 ok.
      failed(record(u.proxyAccountId, now - 6, 1, 'down.example.com:443'), 'target_unreachable'),
      failed(record(u.proxyAccountId, now - 7, 1, 'down.example.com:443'), 'target_unreachable'),
      record(u.proxyAccountId, now - 9, 1, 'down.example.com:443', 300),
      failed(record(u.proxyAccountId, now - 8, 0, 'slow.example.com:443', 900), 'timeout'),
      ...Array.from({ length: 105 }, (_, i) => record(u.proxyAccountId, now - 10 - i, 10, `h${String(i).padStart(3, '0')}.example.net:80`)),
    ];
    const { days, oldest } = reportDays(v1(rows), now, 30);
    await ensureConnectionPartitions(database.db, days);
    await database.db.transaction((tx) => storeConnections(tx, 'gw', v1(rows), oldest));

    const b = await connectionBreakdown(database.db, u.userId, new Date(now - DAY), new Date(now + 1));
    expect(b.byTarget).toHaveLength(100);
    expect(b.byTarget.slice(0, 4)).toEqual([
      { host: 'a.example.com', bytes: '3500', connections: 4, okRate: 1, p50ConnectMs: 25 },
      { host: '[2001:db8::1]', bytes: '2000', connections: 1, okRate: 1, p50ConnectMs: 7 },
      { host: 'h000.example.net', bytes: '10', connections: 1, okRate: 1, p50ConnectMs: null },
      { host: 'h001.example.net', bytes: '10', connections: 1, okRate: 1, p50ConnectMs: null },
    ]);
    expect(b.byTarget.at(-1)).toEqual({ host: 'h097.example.net', bytes: '10', connections: 1, okRate: 1, p50ConnectMs: null });
    expect(b.byOutcome).toEqual([
      { outcome: 'ok', connections: 111 },
      { outcome: 'target_unreachable', connections: 2 },
      { outcome: 'timeout', connections: 1 },
    ]);
    // Below the top 100 by bytes? down.example.com took 3 bytes: check its figures over a range of its own.
    const down = await connectionBreakdown(database.db, u.userId, new Date(now - 9), new Date(now - 5));
    expect(down.byTarget.find((t) => t.host === 'down.example.com')).toEqual({
      host: 'down.example.com',
      bytes: '3',
      connections: 3,
      okRate: 0.3333,
      p50ConnectMs: 300,
    });
    expect(down.byTarget.find((t) => t.host === 'slow.example.com')).toMatchObject({ okRate: 0, p50ConnectMs: 900 });
    // By country: the US's 113 connections, 110 ok; its connect times 10, 20, 30, 41, 300, 900 (median 35.5, rounded up: 36).
    expect(Object.fromEntries(b.byCountry)).toEqual({
      US: { okRate: 0.9735, p50ConnectMs: 36 },
      DE: { okRate: 1, p50ConnectMs: 7 },
    });
  });

  it('refuses a range and a cursor it cannot read, naming the field', async () => {
    const u = await userWithAccount(database.db, 10n * MiB);
    await expect(listConnections(database.db, u.userId, { from: '2026-02-01', to: '2026-01-01' })).rejects.toThrow('The start must not be after the end');
    await expect(listConnections(database.db, u.userId, { cursor: 'nonsense' })).rejects.toThrow('The page cursor is not valid');
  });
});
