import { z } from 'zod';
import { CODE_MAX_LENGTH, CODE_MAX_QUANTITY, MAX_ORDER_GB, MIN_ORDER_GB } from '../constants';
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
    .min(MIN_ORDER_GB, MIN_ORDER_MESSAGE)
    .max(MAX_ORDER_GB, `Maximum order is ${MAX_ORDER_GB}GB`),
  priceUsd: z.number({ error: 'Price must be a number' }).nonnegative('Price must not be negative').max(1e9, 'Price is too large'),
});

/** The web input coerces the typed amount to an integer of at least 1 (spec section 5). */
export function coerceGbAmount(raw: string): number {
  const n = Math.floor(Number(raw));
  return Number.isFinite(n) && n >= 1 ? n : 1;
}

const isTenth = (v: number) => Math.abs(v * 10 - Math.round(v * 10)) < 1e-9;

export const createCodesInput = z.object({
  creditsGB: z
    .number({ error: 'Credits (GB) must be a number' })
    .min(0.1, 'Credits must be at least 0.1 GB')
    .max(100_000, 'Credits must be at most 100000 GB')
    .refine(isTenth, 'Credits must be in steps of 0.1 GB'),
  quantity: z
    .number({ error: 'Quantity must be a number' })
    .int('Quantity must be a whole number')
    .min(1, 'Quantity must be at least 1')
    .max(CODE_MAX_QUANTITY, 'Quantity must be at most 100'),
  expiresAt: z
    .union([z.null(), z.undefined(), z.literal(''), z.date(), z.string().max(64)], { error: 'Expiry must be a date and time' })
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
      return d;
    }),
});
export type CreateCodesInput = z.input<typeof createCodesInput>;
