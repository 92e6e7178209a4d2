import { z } from 'zod';

export const BILLING_PAGE_DEFAULT = 50;
export const BILLING_PAGE_MAX = 500;

/** One page of the user's billing history, newest first; `cursor` is the previous page's nextCursor. */
export const billingListInput = z
  .object({
    limit: z
      .number({ error: 'Limit must be a number' })
      .int('Limit must be a whole number')
      .min(1, 'Limit must be at least 1')
      .max(BILLING_PAGE_MAX, `Limit must be at most ${BILLING_PAGE_MAX}`)
      .optional(),
    cursor: z.string().max(200, 'The page cursor is not valid').optional(),
    /** REST only: `csv` answers text/csv instead of JSON. */
    format: z.enum(['json', 'csv'], { error: 'Format must be json or csv' }).optional(),
  })
  .optional();
export type BillingListInput = z.infer<typeof billingListInput>;

export const receiptInput = z.object({ paymentId: z.string({ error: 'Receipt not found' }).max(100, 'Receipt not found') });

export const BILLING_KINDS = ['code', 'crypto', 'batch', 'adjustment', 'refund', 'reversal', 'gift', 'referral', 'plan'] as const;
export type BillingKind = (typeof BILLING_KINDS)[number];

/**
 * What a line of billing history says, as a key and its values, so each language words it (the
 * billing catalogue's `history.line.<key>`); the line's `description` is its English.
 */
export const BILLING_LINES = [
  'cryptoPayment',
  'cryptoPartial',
  'planPayment',
  'promotion',
  'topupCode',
  'giftRedeemed',
  'giftCreated',
  'giftCancelled',
  'referral',
  'planGrant',
  'planExpire',
  'batchAssociated',
  'batchLeasesMoved',
  'adjustment',
  'adjustmentByAdmin',
  'adjustmentNote',
  'refund',
  'reversal',
  'reversalNote',
] as const;
export type BillingLineKey = (typeof BILLING_LINES)[number];
/** A line: `gb` ordered, `cents` its price, `owedCents` and `creditedBytes` of a part-paid order, a `code`, an admin's `note`. */
export const billingLine = z.object({
  key: z.enum(BILLING_LINES),
  values: z.object({
    gb: z.number().optional(),
    cents: z.number().int().optional(),
    owedCents: z.number().int().optional(),
    creditedBytes: z.string().optional(),
    code: z.string().optional(),
    note: z.string().optional(),
  }),
});
export type BillingLine = z.infer<typeof billingLine>;

/** A crypto order's steps as the user sees them (the providers' finer statuses map onto these). */
export const ORDER_STEPS = ['created', 'waiting', 'confirming', 'paid', 'failed', 'expired', 'cancelled', 'refunded'] as const;
export type OrderStep = (typeof ORDER_STEPS)[number];
