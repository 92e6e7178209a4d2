/**
 * Plans: what the operator sells besides pay-as-you-go GB, a fixed allowance each month or week
 * at a fixed price. Admins (owner, finance) keep the list; everyone reads the active ones.
 */
import { and, asc, eq, gte, isNotNull, isNull, sql } from 'drizzle-orm';
import { DomainError, isPlanId, type CreatePlanValues, type Plan, type UpdatePlanInput } from '@proxyhub/core';
import { payments, plans, subscriptions, type DbOrTx } from '@proxyhub/db';
import { paidCentsSql } from '../network/upstreams';

export const PLAN_NOT_FOUND = 'Plan not found';

type PlanRow = typeof plans.$inferSelect;

const viewOf = (r: PlanRow): Plan => ({
  id: r.id,
  name: r.name,
  gbPerPeriod: r.gbPerPeriod,
  priceCents: r.priceCents,
  period: r.period,
  rollover: r.rollover,
  active: r.active,
});

/** Every plan (admin), or the active ones (everyone), cheapest first. */
export async function listPlans(db: DbOrTx, opts: { activeOnly: boolean }): Promise<Plan[]> {
  const rows = await db
    .select()
    .from(plans)
    .where(opts.activeOnly ? eq(plans.active, true) : undefined)
    .orderBy(asc(plans.priceCents), asc(plans.name), asc(plans.id));
  return rows.map(viewOf);
}

/**
 * Every plan for the admin's Plans tab, each with its subscribers (active subscriptions still
 * running; a cancelled one is not renewing) and its revenue this UTC month (credited plan orders).
 */
export async function listPlansForAdmin(db: DbOrTx, now = new Date()): Promise<Array<Plan & { subscribers: number; revenueCentsThisMonth: number }>> {
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const [all, subscribers, revenue] = await Promise.all([
    listPlans(db, { activeOnly: false }),
    db
      .select({ planId: subscriptions.planId, n: sql<number>`count(*)::int` })
      .from(subscriptions)
      .where(and(eq(subscriptions.status, 'active'), isNull(subscriptions.endedAt)))
      .groupBy(subscriptions.planId),
    db
      .select({ planId: payments.planId, cents: sql<string>`sum(${paidCentsSql})::text` })
      .from(payments)
      .where(and(isNotNull(payments.planId), isNotNull(payments.creditedAt), gte(payments.creditedAt, monthStart)))
      .groupBy(payments.planId),
  ]);
  const count = new Map(subscribers.map((r) => [r.planId, Number(r.n)]));
  const cents = new Map(revenue.map((r) => [r.planId, Number(r.cents)]));
  return all.map((p) => ({ ...p, subscribers: count.get(p.id) ?? 0, revenueCentsThisMonth: cents.get(p.id) ?? 0 }));
}

export async function createPlan(tx: DbOrTx, input: CreatePlanValues): Promise<Plan> {
  const [row] = await tx.insert(plans).values(input).returning();
  return viewOf(row!);
}

/** A change applies to periods that start after it; a period already granted keeps what it was sold with. */
export async function updatePlan(tx: DbOrTx, input: UpdatePlanInput): Promise<Plan> {
  const { id, ...changes } = input;
  if (!isPlanId(id)) throw new DomainError('NOT_FOUND', PLAN_NOT_FOUND);
  const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  const [row] = await tx
    .update(plans)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(plans.id, id))
    .returning();
  if (!row) throw new DomainError('NOT_FOUND', PLAN_NOT_FOUND);
  return viewOf(row);
}

export const PLAN_IN_USE = 'This plan has subscriptions: deactivate it instead';

export async function deletePlan(tx: DbOrTx, id: string): Promise<void> {
  if (!isPlanId(id)) throw new DomainError('NOT_FOUND', PLAN_NOT_FOUND);
  // Orders name it too: an unpaid one may still be paid and must find its plan.
  const [used] = await tx
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(eq(subscriptions.planId, id))
    .union(tx.select({ id: payments.id }).from(payments).where(eq(payments.planId, id)))
    .limit(1);
  if (used) throw new DomainError('CONFLICT', PLAN_IN_USE);
  const [row] = await tx.delete(plans).where(eq(plans.id, id)).returning({ id: plans.id });
  if (!row) throw new DomainError('NOT_FOUND', PLAN_NOT_FOUND);
}
