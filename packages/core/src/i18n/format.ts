/**
 * Numbers, money, traffic and dates in a language's conventions (Intl), for the web app and the
 * mails. Traffic stays exact: GB figures are core's exact two-decimal rounding of the bytes,
 * handed to Intl as a decimal string (no float on the way).
 */
import { formatGb } from '../units';
import type { Locale } from './locales';

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
function numberFormat(locale: Locale, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `n|${locale}|${JSON.stringify(options)}`;
  let f = cache.get(key) as Intl.NumberFormat | undefined;
  if (!f) cache.set(key, (f = new Intl.NumberFormat(locale, options)));
  return f;
}
function dateFormat(locale: Locale, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `d|${locale}|${JSON.stringify(options)}`;
  let f = cache.get(key) as Intl.DateTimeFormat | undefined;
  if (!f) cache.set(key, (f = new Intl.DateTimeFormat(locale, options)));
  return f;
}

/** A count or amount ("12,345", "12 345", "12.345"). */
export const formatNumber = (locale: Locale, n: number | bigint, options: Intl.NumberFormatOptions = {}) => numberFormat(locale, options).format(n);

/** Dollars as money ("$16.00", "16,00 $"); `whole` for an axis. */
export const formatUsd = (locale: Locale, dollars: number, whole = false) =>
  numberFormat(locale, { style: 'currency', currency: 'USD', ...(whole ? { maximumFractionDigits: 0 } : {}) }).format(dollars);

/** Cents as money, exactly (a decimal string, no float). */
export function formatCents(locale: Locale, cents: number | bigint): string {
  const c = BigInt(cents);
  const abs = c < 0n ? -c : c;
  const decimal = `${c < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
  return numberFormat(locale, { style: 'currency', currency: 'USD' }).format(decimal as Intl.StringNumericLiteral);
}

/** Traffic units as each language writes them (KB, not Intl's "kB": the product's units are 2^10 steps). */
const UNIT_LABELS: Record<Locale, { GB: string; MB: string; KB: string }> = {
  en: { GB: 'GB', MB: 'MB', KB: 'KB' },
  ru: { GB: 'ГБ', MB: 'МБ', KB: 'КБ' },
  'zh-CN': { GB: 'GB', MB: 'MB', KB: 'KB' },
  es: { GB: 'GB', MB: 'MB', KB: 'KB' },
  'pt-BR': { GB: 'GB', MB: 'MB', KB: 'KB' },
};

/** A chart's value in its unit ("1,536 MB", "1 536 МБ"); bytes as a count of bytes in the language. */
export function formatInUnitFor(locale: Locale, value: number, unit: 'GB' | 'MB' | 'KB' | 'bytes'): string {
  if (unit === 'bytes') return numberFormat(locale, { style: 'unit', unit: 'byte', unitDisplay: 'long', maximumFractionDigits: 2 }).format(value);
  return `${numberFormat(locale, { maximumFractionDigits: 2 }).format(value)} ${UNIT_LABELS[locale][unit]}`;
}

/** A traffic figure: two decimals in the language's decimal sign, no grouping (as core's GB figures read), then its unit. */
const inUnit = (locale: Locale, value: number | Intl.StringNumericLiteral, unit: 'GB' | 'MB' | 'KB') =>
  `${numberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: false }).format(value)} ${UNIT_LABELS[locale][unit]}`;

/** A GB figure core already rounded ("1.50", from gbBreakdown), as GB in the language: "1,50 ГБ". */
export const formatGbDecimal = (locale: Locale, decimal: string) => inUnit(locale, decimal as Intl.StringNumericLiteral, 'GB');

/** Bytes as GB (2^30) with two decimals, exact: "1.50 GB", "1,50 ГБ". `signed` adds a plus. */
export function formatGbFor(locale: Locale, bytes: bigint | number | string, signed = false): string {
  const b = BigInt(bytes);
  const text = formatGbDecimal(locale, formatGb(b));
  return signed && b > 0n ? `+${text}` : text;
}

/** Bytes for people: GB from a GB, MB below it, KB below a MB, bytes below a KB. */
export function formatBytesFor(locale: Locale, bytes: bigint | number | string): string {
  const b = BigInt(bytes);
  const abs = b < 0n ? -b : b;
  if (abs >= BigInt(GiB)) return formatGbFor(locale, b);
  if (abs >= BigInt(MiB)) return inUnit(locale, Number(b) / MiB, 'MB');
  if (abs >= BigInt(KiB)) return inUnit(locale, Number(b) / KiB, 'KB');
  return numberFormat(locale, { style: 'unit', unit: 'byte', unitDisplay: 'long', useGrouping: false }).format(b);
}

type When = Date | string | number;
const asDate = (d: When) => (d instanceof Date ? d : new Date(d));

/** A day ("11/28/2026", "28.11.2026"). */
export const formatDate = (locale: Locale, d: When, options: Intl.DateTimeFormatOptions = {}) => dateFormat(locale, options).format(asDate(d));
/** A day and time ("11/28/2026, 7:00:00 AM", as Date's toLocaleString has it). */
export const formatDateTime = (locale: Locale, d: When) =>
  dateFormat(locale, { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).format(asDate(d));
/** A time of day. */
export const formatTime = (locale: Locale, d: When, options: Intl.DateTimeFormatOptions = { timeStyle: 'medium' }) =>
  dateFormat(locale, options).format(asDate(d));

const regionNames = new Map<Locale, Intl.DisplayNames>();
/** A country by its ISO code in the language ("US" → "United States", "США"); the code itself if Intl has no name. */
export function formatCountry(locale: Locale, code: string): string {
  let names = regionNames.get(locale);
  if (!names) regionNames.set(locale, (names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' })));
  try {
    return names.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}
