/**
 * Prices the operator sets: the price list (base rate, minimum order, volume tiers) and a rate of
 * one user's own. Every crypto order is priced here, on the server, from what is in force.
 */
import { eq, sql } from 'drizzle-orm';
import {
  DEFAULT_PRICING,
  DomainError,
  minOrderGb,
  orderTotalCents,
  smallestOrder,
  ratePerGbCents,
  type AdminUserPatchInput,
  type Pricing,
} from '@proxyhub/core';
import { pricingSettings, users, type DbOrTx } from '@proxyhub/db';

const ROW = 'pricing';

export async function getPricing(db: DbOrTx): Promise<Pricing> {
  const [row] = await db.select().from(pricingSettings).where(eq(pricingSettings.id, ROW)).limit(1);
  return row ? { pricePerGbCents: row.pricePerGbCents, minOrderCents: row.minOrderCents, tiers: row.tiers } : DEFAULT_PRICING;
}

/** What GET /api/pricing answers. */
export async function publicPricing(db: DbOrTx, userId?: string) {
  const p = await getPricing(db);
  // minOrderTotalCents: what the smallest order is charged (12 GB: $10.80), which pages state beside its GB.
  const base = {
    pricePerGbCents: p.pricePerGbCents,
    minOrderCents: p.minOrderCents,
    minOrderGb: minOrderGb(p),
    minOrderTotalCents: smallestOrder(p).totalCents,
    tiers: p.tiers,
  };
  if (!userId) return base;
  // Signed in: the caller's own rate too, so the Top Up page prices the order as the server will.
  const [u] = await db.select({ rate: users.pricePerGbCents }).from(users).where(eq(users.id, userId)).limit(1);
  return { ...base, userPricePerGbCents: u?.rate ?? null };
}

export async function setPricing(tx: DbOrTx, input: Pricing) {
  const values = { pricePerGbCents: input.pricePerGbCents, minOrderCents: input.minOrderCents, tiers: input.tiers, updatedAt: sql`now()` };
  await tx
    .insert(pricingSettings)
    .values({ id: ROW, ...values })
    .onConflictDoUpdate({ target: pricingSettings.id, set: values });
  return publicPricing(tx);
}

export const USER_NOT_FOUND = 'User not found';

export async function setUserPrice(tx: DbOrTx, input: { id: string; pricePerGbCents: number | null }) {
  const { id, pricePerGbCents } = await patchUser(tx, input);
  return { id, pricePerGbCents };
}

/** PATCH /admin/users/:id: the fields given, in one update; the role check is the procedure's. */
export async function patchUser(tx: DbOrTx, input: AdminUserPatchInput) {
  const [row] = await tx
    .update(users)
    .set({
      ...(input.pricePerGbCents !== undefined ? { pricePerGbCents: input.pricePerGbCents } : {}),
      ...(input.targetPolicyExempt !== undefined ? { targetPolicyExempt: input.targetPolicyExempt } : {}),
    })
    .where(eq(users.id, input.id))
    .returning({ id: users.id, pricePerGbCents: users.pricePerGbCents, targetPolicyExempt: users.targetPolicyExempt });
  if (!row) throw new DomainError('NOT_FOUND', USER_NOT_FOUND);
  return row;
}

/** A user's order of `gbAmount` GB: the rate applied (tier or own rate, the lower) and the total, in cents. */
export async function priceOrder(db: DbOrTx, userId: string, gbAmount: number): Promise<{ pricing: Pricing; ratePerGbCents: number; totalCents: number }> {
  const [pricing, [user]] = await Promise.all([getPricing(db), db.select({ rate: users.pricePerGbCents }).from(users).where(eq(users.id, userId)).limit(1)]);
  const own = user?.rate ?? null;
  return { pricing, ratePerGbCents: ratePerGbCents(pricing, gbAmount, own), totalCents: orderTotalCents(pricing, gbAmount, own) };
}
