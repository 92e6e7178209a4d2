import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { GatewayConnectionRecord } from '@proxyhub/core';
import { fileDatabase, MiB, userWithAccount } from '../../test/fixtures';
import { ensureConnectionPartitions, keptDays, listConnections, maintainConnectionLog, storeConnections } from './connection-log';

const database = fileDatabase();
const DAY = 86_400_000;

function record(proxyAccountId: string, startedAt: number, billed = 100): GatewayConnectionRecord {
  return {
    id: randomUUID(),
    startedAt,
    endedAt: startedAt + 1000,
    protocol: 'connect',
    target: 'example.com:443',
    proxyUserId: 'abc123',
    proxyAccountId,
    country: 'US',
    state: '',
    city: '',
    session: 'rotating',
    bytesUp: 0,
    bytesDown: billed,
    billedBytes: billed,
    outcome: 'ok',
    reason: '',
    exitIp: '',
  };
}

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
    const days = keptDays(records, now, 30);
    expect([...days].sort()).toEqual(['2026-03-29', '2026-03-31']);
    await ensureConnectionPartitions(database.db, days);
    expect(await database.db.transaction((tx) => storeConnections(tx, 'gw', records, days))).toBe(2);
    // Stored once: the same records again (a resent report) add nothing.
    await database.db.transaction((tx) => storeConnections(tx, 'gw', records, days));
    const page = await listConnections(database.db, u.userId, { from: '2026-01-01', to: '2026-04-02' });
    expect(page.connections.map((c) => c.startedAt)).toEqual([new Date(now).toISOString(), new Date(now - 2 * DAY).toISOString()]);

    const { dropped } = await maintainConnectionLog(database.db, now + 29 * DAY, 30);
    expect(dropped).toEqual(['connection_log_20260329']);
    expect(await partitions()).toEqual(['connection_log_20260331', 'connection_log_20260429', 'connection_log_20260430']);
    const after = await listConnections(database.db, u.userId, { from: '2026-01-01', to: '2026-05-02' });
    expect(after.connections).toHaveLength(1);
  });

  it('refuses a range and a cursor it cannot read, naming the field', async () => {
    const u = await userWithAccount(database.db, 10n * MiB);
    await expect(listConnections(database.db, u.userId, { from: '2026-02-01', to: '2026-01-01' })).rejects.toThrow('The start must not be after the end');
    await expect(listConnections(database.db, u.userId, { cursor: 'nonsense' })).rejects.toThrow('The page cursor is not valid');
  });
});
