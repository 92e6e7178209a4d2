import { z } from 'zod';
import { PLAN_PERIODS, SUBSCRIPTION_STATUS_VALUES } from '../plans';

/** What the `plans.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

const planOutput = z.object({
  id: z.string(),
  name: z.string(),
  gbPerPeriod: z.number(),
  priceCents: z.number(),
  period: z.enum(PLAN_PERIODS),
  rollover: z.boolean(),
  active: z.boolean(),
});

export const plansListOutput = z.object({ plans: z.array(planOutput) });

/** One subscription as `subscriptions.*` answer it. */
export const subscriptionOutput = z.object({
  id: z.string(),
  plan: planOutput,
  status: z.enum(SUBSCRIPTION_STATUS_VALUES),
  periodStart: z.date(),
  periodEnd: z.date(),
  allowanceBytes: z.bigint(),
  usedBytes: z.bigint(),
  carriedBytes: z.bigint(),
  renewsAt: z.date().nullable(),
  renewalInvoiceUrl: z.string().nullable(),
});

export const subscriptionsSubscribeOutput = z.object({ invoiceUrl: z.string(), message: z.string() });
export const subscriptionsListOutput = z.object({ subscriptions: z.array(subscriptionOutput) });
