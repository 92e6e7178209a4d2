import type { TFunction } from 'i18next';
import { fmt } from '../../lib/format';

/**
 * Core's costAboveSale sentence ("Pool A costs $3.50 per GB, more than the $0.90 per GB it is sold
 * for[ from 10 GB]: every GB through it loses money") read back into its figures, so the language
 * on show can say it with its own money format; a sentence of another shape shows as the server gave it.
 */
const COST_ABOVE_SALE =
  /^(.+) costs \$(\d+)\.(\d\d) per GB, more than the \$(\d+)\.(\d\d) per GB it is sold for(?: from (\d+) GB)?: every GB through it loses money$/;

export function costWarningText(t: TFunction<'network'>, warning: string): string {
  const m = COST_ABOVE_SALE.exec(warning);
  if (!m) return warning;
  const [, name, costWhole, costCents, priceWhole, priceCents, from] = m;
  const figures = { name: name!, cost: fmt.cents(BigInt(`${costWhole}${costCents}`)), price: fmt.cents(BigInt(`${priceWhole}${priceCents}`)) };
  return from === undefined ? t('upstreams.costWarning', figures) : t('upstreams.costWarningFrom', { ...figures, from: fmt.number(Number(from)) });
}
