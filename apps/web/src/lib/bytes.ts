import { formatGb } from '@proxyhub/core';

export const MiB = 1024 * 1024;

/** Bytes for people: MB below a GB (a chart of small traffic should not read 0.00 everywhere). */
export function formatBytes(bytes: bigint | number | string): string {
  const b = BigInt(bytes);
  return b >= 1024n * BigInt(MiB) ? `${formatGb(b)} GB` : `${(Number(b) / MiB).toFixed(2)} MB`;
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const usdWhole = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 });
/** Dollars as money ("$16.00"); `whole` for an axis ("$16"). */
export const formatUsd = (dollars: number, whole = false) => (whole ? usdWhole : usd).format(dollars);

const mb = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
/** A chart's MB value (2^20 bytes) with its unit ("1,536 MB"). */
export const formatMb = (value: number) => `${mb.format(value)} MB`;
