/**
 * Plan buckets: a subscription period's allowance inside the user's wallet.
 *
 * A bucket's bytes are part of users.credits_bytes (so `credits` stays the total spendable and the
 * ledger invariant is the wallet's); the bucket only says which of those bytes expire and when.
 * Every change of a bucket happens in the transaction that moves the wallet, with the user's row
 * locked first and the buckets after it, in that order everywhere:
 *   - a grant credits the plan's GB (`plan-grant:<subscription>:<period>`) and opens the bucket;
 *   - a lease draws from the open bucket that ends soonest, or from pay-as-you-go only when no
 *     bucket has bytes left; one lease draws from one source (gateway_leases.plan_bucket_id), so
 *     what it does not use goes back where it came from;
 *   - closing a bucket at its period's end debits what is left (`plan-expire:<subscription>:<period>`)
 *     or carries the period's own unused grant into the next bucket once.
 * Bytes leased from a bucket when it closes stay with their lease: what the lease reports as used is
 * the bucket's, what it returns afterwards expires as it comes back (`plan-expire:...:<lease>`), so
 * plan bytes never turn into pay-as-you-go credit.
 */
import { and, asc, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { BYTES_PER_GB } from '@proxyhub/core';
import { gatewayLeases, planBuckets, plans, subscriptions, users, type DbOrTx } from '@proxyhub/db';
import { credit } from './wallet';

export type BucketRow = typeof planBuckets.$inferSelect;

/** The open buckets with bytes left of each user, soonest end first, locked (after the users' rows). */
export async function openBuckets(tx: DbOrTx, userIds: readonly string[]): Promise<Map<string, BucketRow[]>> {
  const out = new Map<string, BucketRow[]>();
  if (!userIds.length) return out;
  const rows = await tx
    .select()
    .from(planBuckets)
    .where(and(inArray(planBuckets.userId, [...userIds]), isNull(planBuckets.closedAt), gt(planBuckets.remainingBytes, 0n)))
    .orderBy(asc(planBuckets.endsAt), asc(planBuckets.id))
    .for('update');
  for (const r of rows) out.set(r.userId, [...(out.get(r.userId) ?? []), r]);
  return out;
}

/** Writes the bucket remainders a reservation worked out (a statement per bucket touched: a user has few). */
export async function saveRemaining(tx: DbOrTx, changes: Map<string, bigint>): Promise<void> {
  for (const [id, remaining] of changes) await tx.update(planBuckets).set({ remainingBytes: remaining }).where(eq(planBuckets.id, id));
}

/**
 * Charges `bytes` already taken from the user's credits to their buckets, soonest end first (bytes
 * beyond a lease, charged at report time); what no bucket covers was pay-as-you-go.
 */
export async function chargeBuckets(tx: DbOrTx, userId: string, bytes: bigint): Promise<void> {
  if (bytes <= 0n) return;
  let left = bytes;
  for (const b of (await openBuckets(tx, [userId])).get(userId) ?? []) {
    if (left <= 0n) break;
    const take = left < b.remainingBytes ? left : b.remainingBytes;
    left -= take;
    await tx
      .update(planBuckets)
      .set({ remainingBytes: sql`${planBuckets.remainingBytes} - ${take}`, usedBytes: sql`${planBuckets.usedBytes} + ${take}` })
      .where(eq(planBuckets.id, b.id));
  }
}

export interface LeaseSettlement {
  leaseId: string;
  bucketId: string;
  used: bigint;
  returned: bigint;
}

/**
 * Applies what leases drawn from buckets used and gave back, after the wallet moved (the returned
 * bytes are in credits again): used bytes count as the bucket's use; returned bytes go back into an
 * open bucket, or expire at once if the bucket closed meanwhile.
 */
export async function settleBucketLeases(tx: DbOrTx, items: readonly LeaseSettlement[]): Promise<void> {
  const moved = items.filter((i) => i.used > 0n || i.returned > 0n);
  if (!moved.length) return;
  const rows = await tx
    .select()
    .from(planBuckets)
    .where(inArray(planBuckets.id, [...new Set(moved.map((i) => i.bucketId))]))
    .for('update');
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const i of moved) {
    const b = byId.get(i.bucketId);
    if (!b) continue;
    const back = b.closedAt ? 0n : i.returned;
    await tx
      .update(planBuckets)
      .set({ usedBytes: sql`${planBuckets.usedBytes} + ${i.used}`, remainingBytes: sql`${planBuckets.remainingBytes} + ${back}` })
      .where(eq(planBuckets.id, b.id));
    if (b.closedAt && i.returned > 0n)
      await credit(tx, {
        wallet: { userId: b.userId },
        bytes: -i.returned,
        kind: 'plan_expire',
        sourceKey: `plan-expire:${b.subscriptionId}:${b.period}:${i.leaseId}`,
        note: 'returned by a lease after the period ended',
      });
  }
}

/** Locks the user's wallet row: every bucket change takes it first (the order reservations use). */
export async function lockWallet(tx: DbOrTx, userId: string): Promise<bigint> {
  const [row] = await tx.select({ credits: users.creditsBytes }).from(users).where(eq(users.id, userId)).for('update');
  return row?.credits ?? 0n;
}

/** Opens a period's bucket: credits the plan's GB to the wallet once, plus what rolled over (already in the wallet). */
export async function grantBucket(
  tx: DbOrTx,
  input: { subscriptionId: string; userId: string; period: number; gb: number; carriedBytes: bigint; startsAt: Date; endsAt: Date },
): Promise<void> {
  const grantedBytes = BigInt(input.gb) * BYTES_PER_GB;
  const done = await credit(tx, {
    wallet: { userId: input.userId },
    bytes: grantedBytes,
    kind: 'plan_grant',
    sourceKey: `plan-grant:${input.subscriptionId}:${input.period}`,
  });
  if (done === null) return;
  await tx.insert(planBuckets).values({
    subscriptionId: input.subscriptionId,
    userId: input.userId,
    period: input.period,
    grantedBytes,
    carriedBytes: input.carriedBytes,
    remainingBytes: grantedBytes + input.carriedBytes,
    startsAt: input.startsAt,
    endsAt: input.endsAt,
  });
}

/**
 * Closes a period's bucket (the wallet row locked by the caller): the period's own unused grant is
 * carried when `carry` (rollover into a next period), everything else left expires with one entry.
 * Returns the bytes carried. Closing twice does nothing (closedAt decides).
 */
export async function closeBucket(tx: DbOrTx, input: { subscriptionId: string; period: number; carry: boolean; now: Date }): Promise<bigint> {
  const [b] = await tx
    .select()
    .from(planBuckets)
    .where(and(eq(planBuckets.subscriptionId, input.subscriptionId), eq(planBuckets.period, input.period), isNull(planBuckets.closedAt)))
    .for('update');
  if (!b) return 0n;
  // The carried part is spent first, so what is left of the period's own grant is at most the grant.
  const carried = input.carry ? (b.remainingBytes < b.grantedBytes ? b.remainingBytes : b.grantedBytes) : 0n;
  let expire = b.remainingBytes - carried;
  const credits = await lockWallet(tx, b.userId);
  if (expire > credits - carried) expire = credits - carried > 0n ? credits - carried : 0n;
  await credit(tx, { wallet: { userId: b.userId }, bytes: -expire, kind: 'plan_expire', sourceKey: `plan-expire:${b.subscriptionId}:${b.period}` });
  await tx.update(planBuckets).set({ remainingBytes: 0n, closedAt: input.now }).where(eq(planBuckets.id, b.id));
  return carried;
}

/** A user's buckets for the admin, latest end first (the open ones hold their plan bytes until `endsAt`). */
export async function listUserBuckets(db: DbOrTx, userId: string, limit = 50) {
  return db
    .select({
      id: planBuckets.id,
      subscriptionId: planBuckets.subscriptionId,
      planName: plans.name,
      period: planBuckets.period,
      grantedBytes: planBuckets.grantedBytes,
      carriedBytes: planBuckets.carriedBytes,
      usedBytes: planBuckets.usedBytes,
      remainingBytes: planBuckets.remainingBytes,
      startsAt: planBuckets.startsAt,
      endsAt: planBuckets.endsAt,
      closedAt: planBuckets.closedAt,
    })
    .from(planBuckets)
    .innerJoin(subscriptions, eq(subscriptions.id, planBuckets.subscriptionId))
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .where(eq(planBuckets.userId, userId))
    .orderBy(desc(planBuckets.endsAt), desc(planBuckets.period))
    .limit(limit);
}

/** Plan bytes a user has: what their open buckets hold in the wallet and in leases drawn from them; and the soonest end. */
export async function userPlanBytes(db: DbOrTx, userId: string): Promise<{ planBytes: bigint; planEndsAt: Date | null }> {
  const rows = await db
    .select({ id: planBuckets.id, remaining: planBuckets.remainingBytes, endsAt: planBuckets.endsAt })
    .from(planBuckets)
    .where(and(eq(planBuckets.userId, userId), isNull(planBuckets.closedAt)))
    .orderBy(asc(planBuckets.endsAt));
  if (!rows.length) return { planBytes: 0n, planEndsAt: null };
  const [leased] = await db
    .select({ v: sql<string>`coalesce(sum(${gatewayLeases.grantedBytes} - ${gatewayLeases.usedBytes}), 0)::text` })
    .from(gatewayLeases)
    .where(
      and(
        isNull(gatewayLeases.settledAt),
        inArray(
          gatewayLeases.planBucketId,
          rows.map((r) => r.id),
        ),
      ),
    );
  return { planBytes: rows.reduce((s, r) => s + r.remaining, 0n) + BigInt(leased!.v), planEndsAt: rows[0]!.endsAt };
}
