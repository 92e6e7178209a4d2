import { z } from 'zod';
import { MIN_ORDER_CENTS } from '../constants';

/**
 * Plans: a monthly or weekly allowance of GB at a fixed price, set by the operator (admin Plans
 * tab, `/admin/plans`) and listed to everyone (`GET /api/plans`, the pricing and Top Up pages).
 */
export const PLAN_PERIODS = ['month', 'week'] as const;
export type PlanPeriod = (typeof PLAN_PERIODS)[number];

/** The most GB a plan may grant a period (a wallet's whole range stays far above it). */
export const MAX_PLAN_GB = 100_000;
/** The most a plan may cost a period: $100,000. */
export const MAX_PLAN_PRICE_CENTS = 10_000_000;

/** A plan's id as given in a path: anything that names no plan is a 404, as an unknown id is. */
export const planIdField = z.string({ error: 'Plan id is required' }).trim().min(1, 'Plan id is required').max(100, 'Plan not found');

/** Whether an id can name a plan at all (ids are UUIDs). */
export const isPlanId = (id: string): boolean => z.uuid().safeParse(id).success;

const planFields = {
  name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(60, 'Name must be at most 60 characters'),
  gbPerPeriod: z
    .number({ error: 'GB per period must be a number' })
    .int('GB per period must be a whole number')
    .min(1, 'GB per period must be at least 1')
    .max(MAX_PLAN_GB, `GB per period must be at most ${MAX_PLAN_GB}`),
  // Paid as a crypto top-up is, so at least the smallest order.
  priceCents: z
    .number({ error: 'Price must be a number' })
    .int('Price must be a whole number of cents')
    .min(MIN_ORDER_CENTS, `Price must be at least $${(MIN_ORDER_CENTS / 100).toFixed(2)}`)
    .max(MAX_PLAN_PRICE_CENTS, `Price must be at most $${(MAX_PLAN_PRICE_CENTS / 100).toFixed(2)}`),
  period: z.enum(PLAN_PERIODS, { error: 'Period must be month or week' }),
  rollover: z.boolean({ error: 'Rollover must be true or false' }),
  active: z.boolean({ error: 'Active must be true or false' }),
};

/** `POST /admin/plans`. */
export const createPlanInput = z.object({
  ...planFields,
  rollover: planFields.rollover.default(false),
  active: planFields.active.default(true),
});
export type CreatePlanInput = z.input<typeof createPlanInput>;
export type CreatePlanValues = z.output<typeof createPlanInput>;

/** `PATCH /admin/plans/:id`: any of the fields; at least one. */
export const updatePlanInput = z
  .object({
    id: planIdField,
    name: planFields.name.optional(),
    gbPerPeriod: planFields.gbPerPeriod.optional(),
    priceCents: planFields.priceCents.optional(),
    period: planFields.period.optional(),
    rollover: planFields.rollover.optional(),
    active: planFields.active.optional(),
  })
  .refine((v) => Object.keys(v).some((k) => k !== 'id' && v[k as keyof typeof v] !== undefined), { message: 'Give at least one field to change' });
export type UpdatePlanInput = z.output<typeof updatePlanInput>;

export const planIdInput = z.object({ id: planIdField });

/** A plan as every caller sees it. */
export interface Plan {
  id: string;
  name: string;
  gbPerPeriod: number;
  priceCents: number;
  period: PlanPeriod;
  rollover: boolean;
  active: boolean;
}

/** `POST /api/subscriptions`: the plan to subscribe to (paid on an invoice, as a crypto top-up is). */
export const subscribeInput = z.object({
  planId: z.string({ error: 'Choose a plan' }).trim().min(1, 'Choose a plan').max(100, 'Plan not found'),
  idempotencyKey: z.string().trim().min(1).max(100).optional(),
});
export type SubscribeInput = z.infer<typeof subscribeInput>;

/** `DELETE /api/subscriptions/:id`. */
export const subscriptionIdInput = z.object({
  id: z.string({ error: 'Subscription id is required' }).trim().min(1, 'Subscription id is required').max(100, 'Subscription not found'),
});

export const SUBSCRIPTION_STATUS_VALUES = ['active', 'lapsed', 'cancelled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUS_VALUES)[number];

/** A subscription as its owner sees it (`GET /api/subscriptions`). Bytes as decimal strings in JSON. */
export interface SubscriptionView {
  id: string;
  plan: Plan;
  status: SubscriptionStatus;
  periodStart: Date;
  periodEnd: Date;
  allowanceBytes: bigint;
  usedBytes: bigint;
  carriedBytes: bigint;
  /** When the next period starts if its renewal is paid; null once renewal is stopped or it lapsed. */
  renewsAt: Date | null;
  /** The open invoice for the next period, once a renewal notice opened one and until it is paid. */
  renewalInvoiceUrl: string | null;
}
