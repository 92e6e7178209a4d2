import { formatGb } from '@proxyhub/core';

export const MiB = 1024 * 1024;

/** Bytes for people: MB below a GB (a chart of small traffic should not read 0.00 everywhere). */
export function formatBytes(bytes: bigint | number | string): string {
  const b = BigInt(bytes);
  return b >= 1024n * BigInt(MiB) ? `${formatGb(b)} GB` : `${(Number(b) / MiB).toFixed(2)} MB`;
}
