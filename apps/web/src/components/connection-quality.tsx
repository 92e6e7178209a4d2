/** How connections fared, as the usage tables show it: the share that ended ok and the median connect time. */
import type { TFunction } from 'i18next';
import type { Column } from './data-table';
import { fmt } from '../lib/format';

export interface Quality {
  okRate: number | null;
  p50ConnectMs: number | null;
}

/** 0.6667 as "66.7%" ("66,7 %" in Russian); a dash where no connection was recorded. */
export function formatOkRate(okRate: number | null): string {
  return okRate === null ? '–' : fmt.number(okRate, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/** A median connect time in ms; a dash where no connection reached its target. */
export function formatConnectMs(ms: number | null): string {
  return ms === null ? '–' : fmt.number(ms, { style: 'unit', unit: 'millisecond', unitDisplay: 'short' });
}

/**
 * The two columns, "Success" and "Median connect", of any row with a connection quality; their heads
 * in the language on show when `t` is given (screens not yet translated give none).
 */
export function qualityColumns<T>(quality: (row: T) => Quality, t?: TFunction<'dashboard'>): Column<T>[] {
  return [
    { head: t ? t('usage.success') : 'Success', num: true, cell: (r) => formatOkRate(quality(r).okRate) },
    { head: t ? t('usage.medianConnect') : 'Median connect', num: true, cell: (r) => formatConnectMs(quality(r).p50ConnectMs) },
  ];
}
