/** How connections fared, as the usage tables show it: the share that ended ok and the median connect time. */
import type { Column } from './data-table';

export interface Quality {
  okRate: number | null;
  p50ConnectMs: number | null;
}

/** 0.6667 as "66.7%"; a dash where no connection was recorded. */
export function formatOkRate(okRate: number | null): string {
  return okRate === null ? '–' : `${(okRate * 100).toFixed(1)}%`;
}

/** A median connect time in ms; a dash where no connection reached its target. */
export function formatConnectMs(ms: number | null): string {
  return ms === null ? '–' : `${ms.toLocaleString('en-US')} ms`;
}

/** The two columns, "Success" and "Median connect", of any row with a connection quality. */
export function qualityColumns<T>(quality: (row: T) => Quality): Column<T>[] {
  return [
    { head: 'Success', num: true, cell: (r) => formatOkRate(quality(r).okRate) },
    { head: 'Median connect', num: true, cell: (r) => formatConnectMs(quality(r).p50ConnectMs) },
  ];
}
