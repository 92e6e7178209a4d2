import { z } from 'zod';
import { BYTES_PER_GB } from '../constants';

/** At most two decimals (GB amounts: 0.01 GB is the smallest step). */
export const isHundredth = (v: number) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-9;

/** What a usage.threshold alert measures: a proxy account's cap, daily or monthly limit, or a plan period's allowance. */
export type UsageMeterKind = 'cap' | 'daily' | 'monthly' | 'plan';

/** The shares of a limit that alert when first reached, unless the user sets their own. */
export const DEFAULT_USAGE_ALERT_PERCENTS = [80, 90] as const;
export const MAX_USAGE_ALERT_PERCENTS = 5;

const PERCENT_WORDS = 'Usage alert percents must be whole numbers from 1 to 99';
const isPercent = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 1 && x <= 99;

/** 1 to 5 different whole percents (1-99), kept ascending. Each message is the list's, so a form shows it at the field. */
export const usageAlertPercents = z
  .array(z.unknown(), { error: PERCENT_WORDS })
  .min(1, 'Usage alert percents must list at least one percent')
  .max(MAX_USAGE_ALERT_PERCENTS, `Usage alert percents must list at most ${MAX_USAGE_ALERT_PERCENTS} percents`)
  .refine((v) => v.every(isPercent), PERCENT_WORDS)
  .refine((v) => new Set(v).size === v.length, 'Usage alert percents must not repeat')
  .transform((v) => (v as number[]).slice().sort((x, y) => x - y));

/**
 * The low-balance threshold: any positive amount with at most two decimals, or null (off); and the
 * usage alert percents (left out: unchanged).
 */
export const setAlertsInput = z.object({
  lowBalanceGB: z
    .number({ error: 'Low balance threshold must be a number' })
    .positive('Low balance threshold must be more than 0 GB')
    .max(1_000_000, 'Low balance threshold must be at most 1000000 GB')
    .refine(isHundredth, 'Low balance threshold has at most two decimals')
    .nullable(),
  usageAlertPercents: usageAlertPercents.optional(),
});
export type SetAlertsInput = z.input<typeof setAlertsInput>;

/**
 * A GB amount with at most two decimals to bytes, rounded up (0.01 GB = 10737419 bytes), so reading
 * it back truncated to hundredths gives the same amount.
 */
export function hundredthsGbToBytes(gb: number): bigint {
  return (BigInt(Math.round(gb * 100)) * BYTES_PER_GB + 99n) / 100n;
}
