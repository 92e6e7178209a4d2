/**
 * Spending caps, one mechanism for two rows: an associated batch (its accounts together never spend
 * more than the batch brought, whoever still holds their passwords) and a proxy account (a
 * sub-account's own limit). What may still be leased under a cap is the cap less what was used and
 * what open leases hold. With `lock` (lease reservations) the capped rows are locked in id order, so
 * two reservations (any gateway) cannot take the same room; the wallet is locked first, as
 * everywhere. Rows without a cap are neither read nor locked: most accounts have none.
 */
import { and, asc, isNotNull, sql } from 'drizzle-orm';
import { batches, proxyAccounts, type DbOrTx } from '@proxyhub/db';
import { anyOf, arrayOf } from './any-of';
import { openLeaseBytesBy } from './wallet';

export interface CapRoom {
  /** What may still be leased under the cap; null: no cap. */
  room: bigint | null;
  /** What the open leases under the cap hold (0 without a cap). */
  held: bigint;
}

const CAPPED = {
  batch: { table: batches, id: batches.id, cap: batches.capBytes, used: batches.capUsedBytes, leasesBy: proxyAccounts.batchId },
  account: {
    table: proxyAccounts,
    id: proxyAccounts.id,
    cap: proxyAccounts.capBytes,
    used: proxyAccounts.usedBytes,
    leasesBy: proxyAccounts.id,
  },
} as const;

export type CappedKind = keyof typeof CAPPED;

/** A cap with room to spend from (its `room` is counted down as grants take it). */
export const hasCap = (c: CapRoom | undefined): c is CapRoom & { room: bigint } => c !== undefined && c.room !== null;

/** The room under the caps of several batches or accounts, in two queries at most; every id asked is in the map. */
export async function capRooms(tx: DbOrTx, kind: CappedKind, ids: readonly string[], opts: { lock: boolean }): Promise<Map<string, CapRoom>> {
  const sorted = [...new Set(ids)].sort();
  const out = new Map<string, CapRoom>(sorted.map((id) => [id, { room: null, held: 0n }]));
  if (!sorted.length) return out;
  const c = CAPPED[kind];
  const query = tx
    .select({ id: c.id, cap: c.cap, used: c.used })
    .from(c.table)
    .where(and(anyOf(c.id, sorted), isNotNull(c.cap)))
    .orderBy(asc(c.id));
  const rows = opts.lock ? await query.for('update') : await query;
  const held = await openLeaseBytesBy(
    tx,
    c.leasesBy,
    rows.map((r) => r.id),
  );
  for (const r of rows) {
    const h = held.get(r.id) ?? 0n;
    const room = r.cap! - r.used - h;
    out.set(r.id, { room: room > 0n ? room : 0n, held: h });
  }
  return out;
}

/** Reported usage counts against the caps (bytes per batch or account id): one statement, however many ids. */
export async function countCapUsage(tx: DbOrTx, kind: CappedKind, usedById: ReadonlyMap<string, bigint>): Promise<void> {
  const c = CAPPED[kind];
  // In id order, as capRooms locks them.
  const counted = [...usedById].filter(([, used]) => used !== 0n).sort(([a], [b]) => (a < b ? -1 : 1));
  if (!counted.length) return;
  const ids = arrayOf(
    c.id,
    counted.map(([id]) => id),
  );
  const bytes = arrayOf(
    c.used,
    counted.map(([, used]) => used),
  );
  await tx.execute(
    sql`update ${c.table} set ${sql.identifier(c.used.name)} = ${c.used} + d.used
          from unnest(${ids}, ${bytes}) as d(id, used) where ${c.id} = d.id`,
  );
}
