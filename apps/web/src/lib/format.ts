/**
 * Numbers, money, traffic and dates in the language on show: core's Intl formatters bound to the
 * current locale (the app re-renders on a language change, so table cells and labels follow).
 */
import {
  formatBytesFor,
  formatCents,
  formatCountry,
  formatDate,
  formatDateTime,
  formatGbDecimal,
  formatGbFor,
  formatInUnitFor,
  formatNumber,
  formatTime,
  formatUsd,
} from '@proxyhub/core/i18n';
import { currentLocale } from '../i18n';

type When = Date | string | number;

export const fmt = {
  number: (n: number | bigint, options?: Intl.NumberFormatOptions) => formatNumber(currentLocale(), n, options),
  usd: (dollars: number, whole = false) => formatUsd(currentLocale(), dollars, whole),
  cents: (cents: number | bigint) => formatCents(currentLocale(), cents),
  gb: (bytes: bigint | number | string, signed = false) => formatGbFor(currentLocale(), bytes, signed),
  /** A GB figure core already rounded ("1.50", e.g. from gbBreakdown). */
  gbDecimal: (decimal: string) => formatGbDecimal(currentLocale(), decimal),
  bytes: (bytes: bigint | number | string) => formatBytesFor(currentLocale(), bytes),
  date: (d: When, options?: Intl.DateTimeFormatOptions) => formatDate(currentLocale(), d, options),
  dateTime: (d: When) => formatDateTime(currentLocale(), d),
  time: (d: When, options?: Intl.DateTimeFormatOptions) => formatTime(currentLocale(), d, options),
  /** A country's name in the language on show; in English the dataset's own name when given (the spec's words). */
  inUnit: (value: number, unit: 'GB' | 'MB' | 'KB' | 'bytes') => formatInUnitFor(currentLocale(), value, unit),
  country: (code: string, englishName?: string) => (currentLocale() === 'en' && englishName ? englishName : formatCountry(currentLocale(), code)),
};
