import type { ReactNode } from 'react';
import { centsToUsd, planPricePerGbCents, type Plan } from '@proxyhub/core';

const PERIOD_WORD: Record<Plan['period'], string> = { month: 'month', week: 'week' };

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
  if (plans.length === 0) return null;
  return (
    <table className="public-table" data-testid="plans">
      <thead>
        <tr>
          <th scope="col">Plan</th>
          <th scope="col">Allowance</th>
          <th scope="col">Price</th>
          <th scope="col">Price per GB</th>
          <th scope="col">Unused GB</th>
          {action && <th scope="col" aria-label="Subscribe" />}
        </tr>
      </thead>
      <tbody>
        <tr data-plan="pay-as-you-go">
          <td>Pay as you go</td>
          <td>What you buy, never expires</td>
          <td>-</td>
          <td>${centsToUsd(payAsYouGoCents)}</td>
          <td>Kept while your account is open</td>
          {action && <td />}
        </tr>
        {plans.map((p) => (
          <tr key={p.id} data-plan={p.name}>
            <td>{p.name}</td>
            <td>
              {p.gbPerPeriod.toLocaleString('en-US')} GB a {PERIOD_WORD[p.period]}
            </td>
            <td>
              ${centsToUsd(p.priceCents)} a {PERIOD_WORD[p.period]}
            </td>
            <td>${centsToUsd(planPricePerGbCents(p))}</td>
            <td>{p.rollover ? 'Carried into the next period once' : `Expire at the end of the ${PERIOD_WORD[p.period]}`}</td>
            {action && <td>{action(p)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
