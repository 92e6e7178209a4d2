/**
 * The ledger invariant (docs/design.md), checked by tests after every flow:
 *   sum(credit_entries) = credits_bytes + bytes leased to gateways and not yet reported + total_usage_bytes
 * per wallet (a user, or a batch not yet associated), and so in total. The entries are written by
 * `wallet.ts`.
 */
import { eq, sql } from 'drizzle-orm';
import { batches, creditEntries, users, type DbOrTx } from '@proxyhub/db';
import { openLeaseBytes, userLeased } from './wallet';

export interface LedgerCheck {
  entries: bigint;
  credits: bigint;
  leased: bigint;
  usage: bigint;
  ok: boolean;
}

const sum = (expr: ReturnType<typeof sql>) => sql<string>`coalesce(sum(${expr}), 0)::text`;

function check(entries: bigint, credits: bigint, leased: bigint, usage: bigint): LedgerCheck {
  return { entries, credits, leased, usage, ok: entries === credits + leased + usage };
}

/** The invariant over the whole database (users and batches together). */
export async function checkLedger(db: DbOrTx): Promise<LedgerCheck> {
  const [e] = await db.select({ v: sum(sql`${creditEntries.amountBytes}`) }).from(creditEntries);
  const [u] = await db.select({ c: sum(sql`${users.creditsBytes}`), t: sum(sql`${users.totalUsageBytes}`), leased: openLeaseBytes() }).from(users);
  const [b] = await db.select({ c: sum(sql`${batches.creditsBytes}`), t: sum(sql`${batches.totalUsageBytes}`) }).from(batches);
  return check(BigInt(e!.v), BigInt(u!.c) + BigInt(b!.c), u!.leased, BigInt(u!.t) + BigInt(b!.t));
}

/** The invariant for one user's wallet (accounts owned by the user, leases on them). */
export async function checkUserLedger(db: DbOrTx, userId: string): Promise<LedgerCheck> {
  // One statement, one snapshot: read apart, a lease reserved between the reads was counted twice.
  const [u] = await db
    .select({
      e: sql<string>`(select coalesce(sum(${creditEntries.amountBytes}), 0) from ${creditEntries} where ${creditEntries.userId} = ${userId})`,
      c: users.creditsBytes,
      t: users.totalUsageBytes,
      leased: userLeased(),
    })
    .from(users)
    .where(eq(users.id, userId));
  if (!u) {
    const [e] = await db
      .select({ v: sum(sql`${creditEntries.amountBytes}`) })
      .from(creditEntries)
      .where(eq(creditEntries.userId, userId));
    return check(BigInt(e!.v ?? 0), 0n, 0n, 0n);
  }
  return check(BigInt(u.e), u.c, u.leased, u.t);
}
