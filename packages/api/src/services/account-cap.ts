/**
 * A proxy account's own cap (sub-accounts; any account may have one): what it may still lease is the
 * cap less what it used and what its open leases hold. With `lock` (lease reservations) the account
 * row is locked, so two gateways reserving for one account cannot take the same room; the wallet is
 * locked first, as everywhere.
 */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { gatewayLeases, proxyAccounts, type DbOrTx } from '@proxyhub/db';
import { anyOf } from './any-of';

export interface AccountCap {
  /** What may still be leased under the cap; null: no cap. */
  room: bigint | null;
  /** What the account's open leases hold (counted under a cap only: 0 without one). */
  held: bigint;
}

/**
 * The caps of several accounts in two queries at most (rows locked in id order with `lock`); every
 * id asked is in the map, an unknown one with no room.
 */
export async function accountCaps(tx: DbOrTx, proxyAccountIds: readonly string[], opts: { lock: boolean }): Promise<Map<string, AccountCap>> {
  const ids = [...new Set(proxyAccountIds)].sort();
  if (!ids.length) return new Map();
  const query = tx
    .select({ id: proxyAccounts.id, cap: proxyAccounts.capBytes, used: proxyAccounts.usedBytes })
    .from(proxyAccounts)
    .where(anyOf(proxyAccounts.id, ids))
    .orderBy(asc(proxyAccounts.id));
  const rows = opts.lock ? await query.for('update') : await query;
  // What open leases hold matters under a cap only (most accounts have none).
  const held = await heldByAccount(
    tx,
    rows.flatMap((r) => (r.cap === null ? [] : [r.id])),
  );
  const out = new Map<string, AccountCap>(ids.map((id) => [id, { room: 0n, held: 0n }]));
  for (const r of rows) {
    const h = held.get(r.id) ?? 0n;
    if (r.cap === null) {
      out.set(r.id, { room: null, held: 0n });
      continue;
    }
    const room = r.cap - r.used - h;
    out.set(r.id, { room: room > 0n ? room : 0n, held: h });
  }
  return out;
}

/** What the open leases of each account hold, in one query. */
async function heldByAccount(tx: DbOrTx, ids: readonly string[]): Promise<Map<string, bigint>> {
  if (!ids.length) return new Map();
  const rows = await tx
    .select({ id: gatewayLeases.proxyAccountId, v: sql`coalesce(sum(${gatewayLeases.grantedBytes} - ${gatewayLeases.usedBytes}), 0)::text`.mapWith(BigInt) })
    .from(gatewayLeases)
    .where(and(anyOf(gatewayLeases.proxyAccountId, ids), isNull(gatewayLeases.settledAt)))
    .groupBy(gatewayLeases.proxyAccountId);
  return new Map(rows.map((r) => [r.id, r.v]));
}

/** Reported usage counts against each account's cap (bytes per proxy account id). */
export async function countAccountUsage(tx: DbOrTx, usedByAccount: ReadonlyMap<string, bigint>): Promise<void> {
  for (const [id, used] of usedByAccount) {
    if (used === 0n) continue;
    await tx
      .update(proxyAccounts)
      .set({ usedBytes: sql`${proxyAccounts.usedBytes} + ${used}` })
      .where(eq(proxyAccounts.id, id));
  }
}
