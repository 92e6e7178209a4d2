/**
 * Subscriptions to plans. A subscription is made when its first period's payment is credited (the
 * order row carries the plan: the same IPN path and idempotency as a top-up); each later period
 * starts at the previous one's end if its renewal was paid by then, else the subscription lapses.
 * A period's end is processed once whatever the number of servers: the subscription row is locked
 * and re-read (`endedAt is null and periodEnd <= now`), and the ledger's source keys are unique.
 */
import { and, asc, desc, eq, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import { BYTES_PER_GB, DomainError, isPlanId, type SubscriptionView } from '@proxyhub/core';
import { payments, planBuckets, plans, subscriptions, type Db, type DbOrTx } from '@proxyhub/db';
import { closeBucket, grantBucket, lockWallet } from './plan-buckets';
import { PLAN_NOT_FOUND } from './plans';

export const SUBSCRIPTION_NOT_FOUND = 'Subscription not found';
export const PLAN_INACTIVE = 'This plan is no longer offered: choose another plan';
export const ALREADY_SUBSCRIBED = 'You already have an active subscription to this plan';

type PlanRow = typeof plans.$inferSelect;
type SubscriptionRow = typeof subscriptions.$inferSelect;

/** The end of a period that starts at `start`: a calendar month (the day clamped to the month's last) or 7 days. */
export function periodEndOf(start: Date, period: PlanRow['period']): Date {
  if (period === 'week') return new Date(start.getTime() + 7 * 86_400_000);
  const d = new Date(start);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + 1);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

/** The plan a new subscription may be ordered for: known (404), offered (409), not already running for this user (409). */
export async function planToSubscribe(db: DbOrTx, input: { userId: string; planId: string }): Promise<PlanRow> {
  const [plan] = isPlanId(input.planId) ? await db.select().from(plans).where(eq(plans.id, input.planId)) : [];
  if (!plan) throw new DomainError('NOT_FOUND', PLAN_NOT_FOUND);
  if (!plan.active) throw new DomainError('CONFLICT', PLAN_INACTIVE);
  if (await runningSubscription(db, input.userId, plan.id)) throw new DomainError('CONFLICT', ALREADY_SUBSCRIBED);
  return plan;
}

async function runningSubscription(db: DbOrTx, userId: string, planId: string, lock = false): Promise<SubscriptionRow | undefined> {
  const q = db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.userId, userId), eq(subscriptions.planId, planId), isNull(subscriptions.endedAt)));
  return (lock ? await q.for('update') : await q)[0];
}

/**
 * A plan order was paid in full (inside the payment's transaction, its row locked): the user's
 * running subscription to the plan gets one more paid period (a renewal: the next period starts at
 * the current one's end), or, with none running (the first payment, or a renewal paid after the
 * subscription lapsed), a subscription starts now with the order's GB. Returns the subscription.
 */
export async function planOrderPaid(tx: DbOrTx, order: { userId: string; planId: string; gbAmount: number }, now: Date): Promise<string> {
  await lockWallet(tx, order.userId);
  const running = await runningSubscription(tx, order.userId, order.planId, true);
  if (running) {
    // A paid period renews even if renewal had been stopped: the customer chose to pay it.
    await tx
      .update(subscriptions)
      .set({ paidPeriods: running.paidPeriods + 1, status: 'active' })
      .where(eq(subscriptions.id, running.id));
    return running.id;
  }
  const [plan] = await tx.select().from(plans).where(eq(plans.id, order.planId));
  const periodEnd = periodEndOf(now, plan!.period);
  const [sub] = await tx
    .insert(subscriptions)
    .values({ userId: order.userId, planId: order.planId, periodStart: now, periodEnd })
    .returning({ id: subscriptions.id });
  await grantBucket(tx, { subscriptionId: sub!.id, userId: order.userId, period: 1, gb: order.gbAmount, carriedBytes: 0n, startsAt: now, endsAt: periodEnd });
  return sub!.id;
}

/**
 * Processes every period end due at `now`, each exactly once across servers: the bucket expires or
 * rolls over, and a paid next period starts at the previous end (several, if the clock moved past
 * several ends); unpaid, the subscription lapses (or stays cancelled). Returns the subscriptions moved.
 */
export async function endDuePeriods(db: Db, now: Date): Promise<number> {
  const due = await db
    .select({ id: subscriptions.id, userId: subscriptions.userId })
    .from(subscriptions)
    .where(and(isNull(subscriptions.endedAt), lte(subscriptions.periodEnd, now)))
    .orderBy(asc(subscriptions.periodEnd))
    .limit(500);
  let moved = 0;
  for (const d of due) if (await db.transaction((tx) => endPeriod(tx, d, now))) moved++;
  return moved;
}

async function endPeriod(tx: DbOrTx, due: { id: string; userId: string }, now: Date): Promise<boolean> {
  await lockWallet(tx, due.userId);
  const [sub] = await tx
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, due.id), isNull(subscriptions.endedAt), lte(subscriptions.periodEnd, now)))
    .for('update');
  if (!sub) return false; // another server processed it
  const [plan] = await tx.select().from(plans).where(eq(plans.id, sub.planId));
  let { period, periodStart, periodEnd } = sub;
  while (periodEnd <= now) {
    const next = sub.paidPeriods > period;
    const carried = await closeBucket(tx, { subscriptionId: sub.id, period, carry: next && plan!.rollover, now });
    if (!next) {
      await tx
        .update(subscriptions)
        .set({ status: sub.status === 'cancelled' ? 'cancelled' : 'lapsed', endedAt: now, period, periodStart, periodEnd })
        .where(eq(subscriptions.id, sub.id));
      return true;
    }
    period += 1;
    periodStart = periodEnd;
    periodEnd = periodEndOf(periodStart, plan!.period);
    await grantBucket(tx, {
      subscriptionId: sub.id,
      userId: sub.userId,
      period,
      gb: plan!.gbPerPeriod,
      carriedBytes: carried,
      startsAt: periodStart,
      endsAt: periodEnd,
    });
  }
  await tx.update(subscriptions).set({ period, periodStart, periodEnd }).where(eq(subscriptions.id, sub.id));
  return true;
}

export const SUBSCRIPTION_ENDED = 'This subscription has already ended';

/** Stops renewal: the current period runs to its end; no renewal notice or invoice follows. */
export async function cancelSubscription(tx: DbOrTx, input: { userId: string; id: string }): Promise<SubscriptionView> {
  if (!isPlanId(input.id)) throw new DomainError('NOT_FOUND', SUBSCRIPTION_NOT_FOUND);
  const mine = and(eq(subscriptions.id, input.id), eq(subscriptions.userId, input.userId));
  const [row] = await tx
    .update(subscriptions)
    .set({ status: 'cancelled' })
    .where(and(mine, isNull(subscriptions.endedAt)))
    .returning({ id: subscriptions.id });
  if (!row) {
    const [ended] = await tx.select({ id: subscriptions.id }).from(subscriptions).where(mine);
    throw ended ? new DomainError('CONFLICT', SUBSCRIPTION_ENDED) : new DomainError('NOT_FOUND', SUBSCRIPTION_NOT_FOUND);
  }
  return (await listSubscriptions(tx, input.userId)).find((s) => s.id === row.id)!;
}

/** The user's subscriptions, running ones first, each with its current (or last) period's bucket. */
export async function listSubscriptions(db: DbOrTx, userId: string): Promise<SubscriptionView[]> {
  const rows = await db
    .select({ sub: subscriptions, plan: plans, bucket: planBuckets })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .leftJoin(planBuckets, and(eq(planBuckets.subscriptionId, subscriptions.id), eq(planBuckets.period, subscriptions.period)))
    .where(eq(subscriptions.userId, userId))
    .orderBy(sql`${subscriptions.endedAt} is not null`, desc(subscriptions.createdAt));
  // A renewal notice opens the next period's invoice (payments.subscription_id); the newest still waiting is the one to pay.
  const running = rows.filter((r) => !r.sub.endedAt).map((r) => r.sub.id);
  const open = running.length
    ? await db
        .select({ subscriptionId: payments.subscriptionId, url: payments.invoiceUrl })
        .from(payments)
        .where(and(inArray(payments.subscriptionId, running), eq(payments.status, 'waiting'), isNotNull(payments.invoiceUrl)))
        .orderBy(asc(payments.createdAt))
    : [];
  const invoiceOf = new Map(open.map((p) => [p.subscriptionId, p.url]));
  return rows.map(({ sub, plan, bucket }) => ({
    id: sub.id,
    plan: {
      id: plan.id,
      name: plan.name,
      gbPerPeriod: plan.gbPerPeriod,
      priceCents: plan.priceCents,
      period: plan.period,
      rollover: plan.rollover,
      active: plan.active,
    },
    status: sub.status,
    periodStart: sub.periodStart,
    periodEnd: sub.periodEnd,
    allowanceBytes: bucket ? bucket.grantedBytes + bucket.carriedBytes : BigInt(plan.gbPerPeriod) * BYTES_PER_GB,
    usedBytes: bucket?.usedBytes ?? 0n,
    carriedBytes: bucket?.carriedBytes ?? 0n,
    renewsAt: sub.status === 'active' && !sub.endedAt ? sub.periodEnd : null,
    renewalInvoiceUrl: sub.status === 'active' && !sub.endedAt ? (invoiceOf.get(sub.id) ?? null) : null,
  }));
}
