import { z } from 'zod';
import { CODE_MAX_LENGTH, CODE_MAX_QUANTITY, MAX_ORDER_GB, type UsageType } from '../constants';
import { requiredText } from './fields';

export const MIN_ORDER_MESSAGE = 'Minimum order is 12GB ($10)';

export const redeemCodeInput = z.object({
  code: requiredText('Please enter a code', CODE_MAX_LENGTH, 'Codes are at most 20 characters').toUpperCase(),
});

export const processBatchInput = z.object({
  batchId: requiredText('Please enter a batch ID', 64, 'Batch IDs are at most 64 characters'),
});

export const cryptoPaymentInput = z.object({
  gbAmount: z
    .number({ error: 'GB amount must be a number' })
    .int('GB amount must be a whole number')
    // The operator's minimum is checked against the prices in force (GET /api/pricing); below 1 GB is never an order.
    .min(1, MIN_ORDER_MESSAGE)
    .max(MAX_ORDER_GB, `Maximum order is ${MAX_ORDER_GB}GB`),
  priceUsd: z.number({ error: 'Price must be a number' }).nonnegative('Price must not be negative').max(1e9, 'Price is too large'),
  /** A bonus promotion's code (the order's price is unchanged; it is credited more). */
  promoCode: z
    .string({ error: 'Promo code must be text' })
    .trim()
    .max(20, 'Codes are at most 20 characters')
    .toUpperCase()
    .nullish()
    .transform((v) => v || null),
  /**
   * Any text the client makes up once per order it means to place (a UUID): a repeat with the same
   * key within ORDER_IDEMPOTENCY_MINUTES answers the order the first made instead of a second one.
   */
  idempotencyKey: z
    .string({ error: 'Idempotency key must be text' })
    .trim()
    .min(1, 'Idempotency key must not be empty')
    .max(100, 'Idempotency key is at most 100 characters')
    .optional(),
});

/** How long a crypto order's idempotency key answers with the same order. */
export const ORDER_IDEMPOTENCY_MINUTES = 10;

/** A waiting crypto order the customer gives up (Billing's Cancel). */
export const cancelCryptoPaymentInput = z.object({
  paymentId: z.string({ error: 'Order not found' }).max(100, 'Order not found'),
});

/** The web input coerces the typed amount to an integer of at least 1 (spec section 5). */
export function coerceGbAmount(raw: string): number {
  const n = Math.floor(Number(raw));
  return Number.isFinite(n) && n >= 1 ? n : 1;
}

const isTenth = (v: number) => Math.abs(v * 10 - Math.round(v * 10)) < 1e-9;

/** JavaScript dates reach the year 275760; ISO 8601 and the database's text form stop at 9999. */
const LATEST_EXPIRY = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const EXPIRY_TOO_LATE_MESSAGE = 'Expiry must be before the year 10000';

/** The admin form's credit rule, shared by codes and batches: at least 0.1 GB, in steps of 0.1. */
export const creditsGbField = z
  .number({ error: 'Credits (GB) must be a number' })
  .min(0.1, 'Credits must be at least 0.1 GB')
  .max(100_000, 'Credits must be at most 100000 GB')
  .refine(isTenth, 'Credits must be in steps of 0.1 GB');

/** A gift code made from one's own balance (`POST /api/gift-codes`). */
export const giftCodeInput = z.object({ creditsGB: creditsGbField });
export type GiftCodeInput = z.input<typeof giftCodeInput>;

/** One of the caller's gift codes, as in `DELETE /api/gift-codes/:code` (any case). */
export const giftCodeParam = z.object({
  code: requiredText('Please enter a code', CODE_MAX_LENGTH, 'Codes are at most 20 characters').toUpperCase(),
});

export const createCodesInput = z.object({
  creditsGB: creditsGbField,
  quantity: z
    .number({ error: 'Quantity must be a number' })
    .int('Quantity must be a whole number')
    .min(1, 'Quantity must be at least 1')
    .max(CODE_MAX_QUANTITY, 'Quantity must be at most 100'),
  expiresAt: z
    .union([z.null(), z.literal(''), z.date(), z.string().max(64)], { error: 'Expiry must be a date and time' })
    .optional()
    .transform((v, ctx) => {
      if (v === null || v === undefined || v === '') return null;
      const d = v instanceof Date ? v : new Date(v);
      if (Number.isNaN(d.getTime())) {
        ctx.issues.push({ code: 'custom', message: 'Expiry must be a date and time', input: v });
        return z.NEVER;
      }
      if (d.getTime() <= Date.now()) {
        ctx.issues.push({ code: 'custom', message: 'Expiry must be in the future', input: v });
        return z.NEVER;
      }
      if (d.getTime() > LATEST_EXPIRY) {
        ctx.issues.push({ code: 'custom', message: EXPIRY_TOO_LATE_MESSAGE, input: v });
        return z.NEVER;
      }
      return d;
    }),
});
export type CreateCodesInput = z.input<typeof createCodesInput>;

export const BATCH_USAGE_TYPES = ['shop_proxy_regular', 'shop_proxy_admin'] as const satisfies readonly UsageType[];
export const BATCH_MAX_ACCOUNTS = 1000;

export const createBatchInput = z.object({
  accounts: z
    .number({ error: 'Accounts must be a number' })
    .int('Accounts must be a whole number')
    .min(1, 'Accounts must be at least 1')
    .max(BATCH_MAX_ACCOUNTS, `Accounts must be at most ${BATCH_MAX_ACCOUNTS}`),
  creditsGB: creditsGbField,
  usageType: z.enum(BATCH_USAGE_TYPES, { error: 'Usage type must be shop_proxy_regular or shop_proxy_admin' }),
});
export type CreateBatchInput = z.input<typeof createBatchInput>;

export const pageField = z
  .number({ error: 'Page must be a number' })
  .int('Page must be a whole number')
  .min(1, 'Page must be at least 1')
  .max(1_000_000, 'Page is too large');
/** Page sizes up to `max` (100 unless a list says otherwise). */
export const pageSizeUpTo = (max: number) =>
  z
    .number({ error: 'Page size must be a number' })
    .int('Page size must be a whole number')
    .min(1, 'Page size must be at least 1')
    .max(max, `Page size must be at most ${max}`);

export const ADMIN_USER_STATUSES = ['active', 'unverified', 'suspended', 'deleted'] as const;
export const ADMIN_USER_SORTS = ['createdAt', 'email', 'credits', 'usage'] as const;

/**
 * The admin's user list. `q` matches email, name or proxy user id (substring, any case); `search` is
 * the older name of `q`. Pages of up to 200.
 */
export const adminUsersInput = z
  .object({
    q: z.string({ error: 'Search must be text' }).trim().max(200, 'Search must be at most 200 characters').optional(),
    search: z.string({ error: 'Search must be text' }).trim().max(200, 'Search must be at most 200 characters').optional(),
    status: z.enum(ADMIN_USER_STATUSES, { error: 'Status must be active, unverified, suspended or deleted' }).optional(),
    sort: z.enum(ADMIN_USER_SORTS, { error: 'Sort must be by sign-up date, email, credits or usage' }).optional(),
    order: z.enum(['asc', 'desc'], { error: 'Order must be asc or desc' }).optional(),
    page: pageField.optional(),
    pageSize: pageSizeUpTo(200).optional(),
  })
  .optional();
export type AdminUsersInput = z.input<typeof adminUsersInput>;

/** Location codes arrive from paths in any case; unknown or malformed codes are a 404, not a 400. */
const locationCodeParam = (what: string) =>
  z
    .string({ error: `${what} code is required` })
    .trim()
    .min(1, `${what} code is required`)
    .max(64, `${what} code is too long`)
    .toUpperCase();

export const statesInput = z.object({ country: locationCodeParam('Country') });
export const citiesInput = z.object({ country: locationCodeParam('Country'), state: locationCodeParam('State') });
