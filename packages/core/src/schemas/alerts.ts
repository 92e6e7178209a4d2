import { z } from 'zod';
import { BYTES_PER_GB } from '../constants';

/** At most two decimals (GB amounts: 0.01 GB is the smallest step). */
export const isHundredth = (v: number) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-9;

/** The low-balance threshold: any positive amount with at most two decimals, or null (off). */
export const setAlertsInput = z.object({
  lowBalanceGB: z
    .number({ error: 'Low balance threshold must be a number' })
    .positive('Low balance threshold must be more than 0 GB')
    .max(1_000_000, 'Low balance threshold must be at most 1000000 GB')
    .refine(isHundredth, 'Low balance threshold has at most two decimals')
    .nullable(),
});
export type SetAlertsInput = z.infer<typeof setAlertsInput>;

/**
 * A GB amount with at most two decimals to bytes, rounded up (0.01 GB = 10737419 bytes), so reading
 * it back truncated to hundredths gives the same amount.
 */
export function hundredthsGbToBytes(gb: number): bigint {
  return (BigInt(Math.round(gb * 100)) * BYTES_PER_GB + 99n) / 100n;
}
