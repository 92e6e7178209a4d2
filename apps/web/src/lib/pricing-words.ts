/** The price list's figures in words of the language on show (the public pages' and the landing page's). */
import { smallestOrder, type Pricing } from '@proxyhub/core';
import { i18n } from '../i18n';
import { fmt } from './format';

/** Whole GB ("100 GB", "100 ГБ"). */
export const wholeGb = (gb: number) => fmt.number(gb, { style: 'unit', unit: 'gigabyte' });

/** "12 GB for $10.80": core's smallestOrderText, in the language on show (the public namespace is loaded by the pages that show it). */
export function smallestOrderWords(p: Pricing): string {
  const o = smallestOrder(p);
  return i18n.t('public:smallestOrder', { gb: fmt.number(o.gb), total: fmt.cents(o.totalCents) });
}
