import { formatGb } from '@proxyhub/core';

export const KiB = 1024;
export const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/**
 * Bytes for people: GB (2^30, core's rounding) from a GB, MB below it, KB below a MB and bytes below
 * a KB, so small traffic never reads "0.00 MB".
 */
export function formatBytes(bytes: bigint | number | string): string {
  const b = BigInt(bytes);
  const abs = b < 0n ? -b : b;
  if (abs >= BigInt(GiB)) return `${formatGb(b)} GB`;
  if (abs >= BigInt(MiB)) return `${(Number(b) / MiB).toFixed(2)} MB`;
  if (abs >= BigInt(KiB)) return `${(Number(b) / KiB).toFixed(2)} KB`;
  return `${b} bytes`;
}

/** The unit a chart of these values is drawn in: the largest whose step the biggest value reaches. */
export function chartUnit(maxBytes: number): { name: 'bytes' | 'KB' | 'MB' | 'GB'; size: number } {
  if (maxBytes >= GiB) return { name: 'GB', size: GiB };
  if (maxBytes >= MiB) return { name: 'MB', size: MiB };
  if (maxBytes >= KiB) return { name: 'KB', size: KiB };
  return { name: 'bytes', size: 1 };
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const usdWhole = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 });
/** Dollars as money ("$16.00"); `whole` for an axis ("$16"). */
export const formatUsd = (dollars: number, whole = false) => (whole ? usdWhole : usd).format(dollars);

const amount = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
/** A chart's value in its unit ("1,536 MB"). */
export const formatInUnit = (value: number, unit: string) => `${amount.format(value)} ${unit}`;
