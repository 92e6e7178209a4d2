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

const unitFormat = (locale: Locale, unit: 'gigabyte' | 'megabyte' | 'kilobyte', digits: number) =>
  numberFormat(locale, { style: 'unit', unit, unitDisplay: 'short', minimumFractionDigits: digits, maximumFractionDigits: digits });

/** A GB figure core already rounded ("1.50", from gbBreakdown), as GB in the language: "1,50 ГБ". */
export const formatGbDecimal = (locale: Locale, decimal: string) => unitFormat(locale, 'gigabyte', 2).format(decimal as Intl.StringNumericLiteral);

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
  if (abs >= BigInt(MiB)) return unitFormat(locale, 'megabyte', 2).format(Number(b) / MiB);
  // Intl writes "kB" (the SI kilo); ours is 1024 bytes, written KB as everywhere in the app.
  if (abs >= BigInt(KiB))
    return unitFormat(locale, 'kilobyte', 2)
      .format(Number(b) / KiB)
      .replace('kB', 'KB');
  // At most four digits below a KB: written without a group separator ("1000 bytes", as before).
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
