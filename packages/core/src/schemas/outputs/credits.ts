import { z } from 'zod';
import { PAYMENT_STATUSES } from '../../constants';

/** What the `credits.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const creditsRedeemOutput = z.object({ creditedBytes: z.bigint(), remainingBytes: z.bigint(), message: z.string() });

export const creditsCreateCryptoPaymentOutput = z.object({ paymentId: z.string(), invoiceUrl: z.string(), message: z.string() });

export const creditsCancelCryptoPaymentOutput = z.object({ paymentId: z.string(), status: z.literal('cancelled') });

export const creditsPromoPreviewOutput = z.object({ code: z.string(), bonusPercent: z.number(), bonusBytes: z.bigint(), creditsBytes: z.bigint() });

/**
 * The price list; signed in, also the caller's own rate (null without one). One object, not a
 * union: zod keeps the first union member that matches and would drop `userPricePerGbCents`.
 */
export const pricingOutput = z.object({
  userPricePerGbCents: z.number().nullable().optional(),
  pricePerGbCents: z.number(),
  minOrderCents: z.number(),
  minOrderGb: z.number(),
  minOrderTotalCents: z.number(),
  tiers: z.array(z.object({ minGb: z.number(), pricePerGbCents: z.number() })),
});

export const creditsPricingOutput = pricingOutput;

/** One crypto order with its provider's events (the user's payment history and the admin's payments). */
export const paymentOutput = z.object({
  id: z.string(),
  provider: z.string(),
  gbAmount: z.number(),
  priceCents: z.number(),
  creditsBytes: z.bigint(),
  bonusBytes: z.bigint(),
  creditedBytes: z.bigint(),
  paidCents: z.number().nullable(),
  status: z.enum(PAYMENT_STATUSES),
  invoiceUrl: z.string().nullable(),
  createdAt: z.date(),
  creditedAt: z.date().nullable(),
  events: z.array(z.object({ status: z.string(), source: z.string(), createdAt: z.date() })),
});

export const creditsPaymentsOutput = z.array(paymentOutput);

export const creditsProcessBatchOutput = z.object({ message: z.string(), creditedBytes: z.bigint(), accounts: z.number() });

export const creditsCreateBatchOutput = z.object({ batchId: z.string(), accounts: z.array(z.object({ proxyUserId: z.string(), proxyPassword: z.string() })) });
