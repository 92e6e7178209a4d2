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

/** Bytes to GB truncated (not rounded) to 2 decimals: the spec's GB fields of REST answers. */
export function bytesToGbTruncated(bytes: bigint | number): number {
  const b = BigInt(bytes);
  const hundredths = (b * 100n) / BYTES_PER_GB;
  return Number(hundredths) / 100;
}

/** Bytes as GB for display, exactly 2 decimals, truncated: how the web shows every balance and usage. */
export function formatGb(bytes: bigint | number): string {
  const b = BigInt(bytes);
  const neg = b < 0n;
  const abs = neg ? -b : b;
  const hundredths = (abs * 100n) / BYTES_PER_GB;
  const s = `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
  return neg ? `-${s}` : s;
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

/** "1 session", "2 sessions": a count with its noun in the right number (English, regular plural unless given). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
