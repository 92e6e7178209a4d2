/**
 * A proxy account's own cap (sub-accounts; any account may have one): what it may still lease is the
 * cap less what it used and what its open leases hold. With `lock` (lease reservations) the account
 * row is locked, so two gateways reserving for one account cannot take the same room; the wallet is
 * locked first, as everywhere.
 */
import { eq, sql } from 'drizzle-orm';
import { proxyAccounts, type DbOrTx } from '@proxyhub/db';
import { openLeaseBytes } from './wallet';

export interface AccountCap {
  /** What may still be leased under the cap; null: no cap. */
  room: bigint | null;
  /** What the account's open leases hold. */
  held: bigint;
}

export async function accountCap(tx: DbOrTx, proxyAccountId: string, opts: { lock: boolean }): Promise<AccountCap> {
  const query = tx
    .select({ cap: proxyAccounts.capBytes, used: proxyAccounts.usedBytes, held: openLeaseBytes(eq(proxyAccounts.id, proxyAccountId)) })
    .from(proxyAccounts)
    .where(eq(proxyAccounts.id, proxyAccountId));
  const [row] = opts.lock ? await query.for('update') : await query;
  if (!row) return { room: 0n, held: 0n };
  if (row.cap === null) return { room: null, held: row.held };
  const room = row.cap - row.used - row.held;
  return { room: room > 0n ? room : 0n, held: row.held };
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
