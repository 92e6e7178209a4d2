import { GiB, KiB, MiB } from '@proxyhub/core/i18n';
import { fmt } from './format';

export { KiB, MiB };

/**
 * Bytes for people: GB (2^30, core's rounding) from a GB, MB below it, KB below a MB and bytes below
 * a KB, so small traffic never reads "0.00 MB".
 */
export const formatBytes = (bytes: bigint | number | string): string => fmt.bytes(bytes);

/** The unit a chart of these values is drawn in: the largest whose step the biggest value reaches. */
export function chartUnit(maxBytes: number): { name: 'bytes' | 'KB' | 'MB' | 'GB'; size: number } {
  if (maxBytes >= GiB) return { name: 'GB', size: GiB };
  if (maxBytes >= MiB) return { name: 'MB', size: MiB };
  if (maxBytes >= KiB) return { name: 'KB', size: KiB };
  return { name: 'bytes', size: 1 };
}

/** Dollars as money ("$16.00"); `whole` for an axis ("$16"). In the language on show. */
export const formatUsd = (dollars: number, whole = false) => fmt.usd(dollars, whole);

/** A chart's value in its unit ("1,536 MB"). */
export const formatInUnit = (value: number, unit: 'bytes' | 'KB' | 'MB' | 'GB') => fmt.inUnit(value, unit);
