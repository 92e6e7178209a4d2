import { BYTES_PER_GB, BYTES_PER_MB, MIN_ORDER_CENTS, PRICE_PER_GB_CENTS } from './constants';

/** Tenths of a GB to bytes in integer arithmetic, rounded to the nearest byte (0.1 GB = 107374182). */
export function tenthsOfGbToBytes(tenths: number | bigint): bigint {
  const t = BigInt(tenths);
  return (t * BYTES_PER_GB + 5n) / 10n;
}

/** A GB amount with at most one decimal (as the admin form sends it) to bytes, without floats in the result. */
export function gbToBytes(gb: number): bigint {
  return tenthsOfGbToBytes(Math.round(gb * 10));
}

/** Bytes to GB truncated (not rounded) to 2 decimals, as the spec shows balances. */
export function bytesToGbTruncated(bytes: bigint | number): number {
  const b = BigInt(bytes);
  const hundredths = (b * 100n) / BYTES_PER_GB;
  return Number(hundredths) / 100;
}

/** Display string with exactly 2 decimals, truncated. */
export function formatGb(bytes: bigint | number): string {
  const b = BigInt(bytes);
  const neg = b < 0n;
  const abs = neg ? -b : b;
  const hundredths = (abs * 100n) / BYTES_PER_GB;
  const s = `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
  return neg ? `-${s}` : s;
}

/**
 * A GB figure the server already truncated (admin rows, usage stats) as a 2-decimal string, still
 * truncating, without float noise: 0.29 * 100 is 28.999999999999996, so a plain trunc shows 0.28.
 */
export function formatGbNumber(gb: number): string {
  const hundredths = Math.trunc(Math.round(gb * 100 * 1e6) / 1e6);
  return (hundredths / 100).toFixed(2);
}

/** Whole MB (1 MB = 1048576 bytes), rounded to the nearest MB, for the redemption message. */
export function bytesToMb(bytes: bigint | number): number {
  const b = BigInt(bytes);
  return Number((b + BYTES_PER_MB / 2n) / BYTES_PER_MB);
}

/** Crypto order total: max(GB x $0.90, $10), in cents. */
export function orderPriceCents(gbAmount: number): number {
  return Math.max(gbAmount * PRICE_PER_GB_CENTS, MIN_ORDER_CENTS);
}

export function centsToUsd(cents: number): string {
  return (cents / 100).toFixed(2);
}
