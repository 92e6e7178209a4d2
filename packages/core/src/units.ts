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

/**
 * Bytes to hundredths of a GB, rounded half away from zero: the one rounding rule for every GB
 * figure we show or answer (web, REST GB fields, mail), so the same bytes read the same everywhere.
 */
function hundredthsOfGb(bytes: bigint | number): bigint {
  const b = BigInt(bytes);
  const abs = b < 0n ? -b : b;
  const h = (abs * 100n + BYTES_PER_GB / 2n) / BYTES_PER_GB;
  return b < 0n ? -h : h;
}

function hundredthsToString(h: bigint): string {
  const abs = h < 0n ? -h : h;
  const s = `${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
  return h < 0n ? `-${s}` : s;
}

/** Bytes to GB rounded to 2 decimals, as a number: the GB fields of REST answers. */
export function bytesToGb(bytes: bigint | number): number {
  return Number(hundredthsOfGb(bytes)) / 100;
}

/** Bytes as GB for display, exactly 2 decimals, rounded: how the web shows a balance or an amount. */
export function formatGb(bytes: bigint | number): string {
  return hundredthsToString(hundredthsOfGb(bytes));
}

/**
 * One wallet's Remaining and Total Usage in GB such that the two shown figures add up to what was
 * bought (remaining + used, every credit ever made). Two figures rounded on their own can miss the
 * total by 0.01 (19.755 + 0.245 = 20, yet 19.76 + 0.25); so the total and the remaining are rounded
 * and the usage shown is their difference (at most 0.01 from the usage rounded on its own).
 */
export function gbBreakdown(remainingBytes: bigint | number, usedBytes: bigint | number): { remaining: string; used: string; bought: string } {
  const remaining = hundredthsOfGb(remainingBytes);
  const bought = hundredthsOfGb(BigInt(remainingBytes) + BigInt(usedBytes));
  return { remaining: hundredthsToString(remaining), used: hundredthsToString(bought - remaining), bought: hundredthsToString(bought) };
}

/**
 * A message that reports an amount in MB (the spec's redemption and batch messages) with the same
 * amount in GB beside it, for the screens: "Successfully redeemed 1536 MB (1.50 GB)".
 */
export function withGbBeside(message: string, bytes: bigint | number): string {
  return message.replace(/\b(\d+) MB\b/, `$1 MB (${formatGb(bytes)} GB)`);
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

/**
 * Dollars as an admin types them ("0.90", "$3.50", "12") to integer cents for the schemas that
 * take cents. Blank or not a number: NaN (the schema's "must be a number"); more than two decimals:
 * a fraction of a cent (the schema's "whole number of cents"), never silently rounded.
 */
export function usdToCents(text: string): number {
  const t = text.trim().replace(/^\$/, '').trim();
  if (t === '' || !/^-?\d*\.?\d*$/.test(t)) return Number.NaN;
  const cents = Number(t) * 100;
  const whole = Math.round(cents);
  // 0.29 * 100 is 28.999999999999996 in binary floating point: that is 29 cents.
  return Math.abs(cents - whole) < 1e-6 ? whole : cents;
}

/** "1 session", "2 sessions": a count with its noun in the right number (English, regular plural unless given). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** The unit said once wherever GB is shown (the spec's GB is 2^30 bytes, not 10^9). */
export const GB_NOTE = 'GB = 1,073,741,824 bytes';
/** The GB column of an export, named with its unit. */
export const GB_CSV_COLUMN = 'gb (GB = 1073741824 bytes)';

/** A byte count written out for a tooltip: "1,610,612,736 bytes". */
export function exactBytes(bytes: bigint | number | string): string {
  const b = BigInt(bytes);
  return `${b.toLocaleString('en-US')} ${b === 1n || b === -1n ? 'byte' : 'bytes'}`;
}
