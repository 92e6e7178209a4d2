/**
 * A line of billing history in words: the billing catalogue's sentence for its key, its figures in
 * the caller's formats. The server words it in English for the line's `description`; the web app in
 * the language on show.
 */
import type { BillingLine, BillingLineKey } from '../schemas/billing';
import type { EnglishCatalogues } from './catalogues';

export interface LineFormats {
  number: (n: number) => string;
  cents: (cents: number) => string;
  bytes: (bytes: string) => string;
}

// Every line has its sentence (the typecheck fails on one missing from the English catalogue).
type Worded = EnglishCatalogues['billing']['history']['line'] extends Record<BillingLineKey, string> ? true : never;
const worded: Worded = true;
void worded;

/** A t for the billing namespace (the sentences' placeholders differ by key, so it is not the typed one). */
export type LineTranslate = (key: `history.line.${BillingLine['key']}`, values: Record<string, string>) => string;

export function billingLineWords(t: LineTranslate, line: BillingLine, f: LineFormats): string {
  const v = line.values;
  const words = t(`history.line.${line.key}`, {
    gb: v.gb === undefined ? '' : f.number(v.gb),
    price: v.cents === undefined ? '' : f.cents(v.cents),
    owed: v.owedCents === undefined ? '' : f.cents(v.owedCents),
    credited: v.creditedBytes === undefined ? '' : f.bytes(v.creditedBytes),
    code: v.code ?? '',
    note: v.note ?? '',
  });
  // A line without its code (a deleted one) reads without the gap.
  return words.replace(/ {2,}/g, ' ').trim();
}
