import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { planPricePerGbCents, type Plan } from '@proxyhub/core';
import { fmt } from '../lib/format';
import { wholeGb } from '../lib/pricing-words';

const PER_PERIOD = { month: 'plans.perMonth', week: 'plans.perWeek' } as const;
const EXPIRE = { month: 'plans.expireMonth', week: 'plans.expireWeek' } as const;

/**
 * The active plans beside pay-as-you-go: the allowance, the price and the price per GB each works
 * out to, so a buyer can compare it with `payAsYouGoCents` per GB. Nothing when there are none.
 */
export function PlansTable({
  plans,
  payAsYouGoCents,
  action,
}: {
  plans: readonly Plan[];
  payAsYouGoCents: number;
  /** A last cell per plan (the Top Up page's Subscribe button). */
  action?: (plan: Plan) => ReactNode;
}) {
  const { t } = useTranslation();
  if (plans.length === 0) return null;
  return (
    <table className="public-table" data-testid="plans">
      <thead>
        <tr>
          <th scope="col">{t('plans.plan')}</th>
          <th scope="col">{t('plans.allowance')}</th>
          <th scope="col">{t('plans.price')}</th>
          <th scope="col">{t('plans.pricePerGb')}</th>
          <th scope="col">{t('plans.unusedGb')}</th>
          {action && <th scope="col" aria-label={t('plans.subscribe')} />}
        </tr>
      </thead>
      <tbody>
        <tr data-plan="pay-as-you-go">
          <td>{t('plans.payAsYouGo')}</td>
          <td>{t('plans.payAsYouGoAllowance')}</td>
          <td>-</td>
          <td>{fmt.cents(payAsYouGoCents)}</td>
          <td>{t('plans.payAsYouGoUnused')}</td>
          {action && <td />}
        </tr>
        {plans.map((p) => (
          <tr key={p.id} data-plan={p.name}>
            <td>{p.name}</td>
            <td>{t(PER_PERIOD[p.period], { value: wholeGb(p.gbPerPeriod) })}</td>
            <td>{t(PER_PERIOD[p.period], { value: fmt.cents(p.priceCents) })}</td>
            <td>{fmt.cents(planPricePerGbCents(p))}</td>
            <td>{t(p.rollover ? 'plans.rollover' : EXPIRE[p.period])}</td>
            {action && <td>{action(p)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
