import { z } from 'zod';
import { statementDate } from './statements';
import { upstreamIdInput } from './upstreams';

/** The provider's meter against ours (admin.upstreamReconciliation, admin.reconcileUpstream). */

/** The most UTC days one reconciliation answer covers. */
export const RECONCILIATION_MAX_DAYS = 92;
/** Days answered when the request names none: the last 30, today included. */
export const RECONCILIATION_DEFAULT_DAYS = 30;
/** Days each reconcile run fetches from the provider, ending yesterday (UTC). */
export const RECONCILE_DAYS = 7;
/** A day fetched once it is this many days old is final: providers finish their counts late until then. */
export const RECONCILE_FINAL_AFTER_DAYS = 3;

const DAY_MS = 86_400_000;
const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / DAY_MS;

/** Why a range of UTC days (YYYY-MM-DD, both included) is refused, naming the field; null when it is fine. */
export function dayRangeProblem(from: string, to: string): { field: 'from' | 'to'; message: string } | null {
  if (from > to) return { field: 'from', message: 'from must not be after to' };
  if (dayNumber(to) - dayNumber(from) + 1 > RECONCILIATION_MAX_DAYS)
    return { field: 'to', message: `to must be at most ${RECONCILIATION_MAX_DAYS} days from from (both included)` };
  return null;
}

/** `GET /admin/upstreams/:id/reconciliation?from&to`: UTC days; default the last 30 days, today included. */
export const upstreamReconciliationInput = upstreamIdInput
  .extend({
    from: statementDate('from').optional(),
    to: statementDate('to').optional(),
    /** REST only: `csv` answers the same rows as text/csv. */
    format: z.enum(['json', 'csv'], { error: 'Format must be json or csv' }).optional(),
  })
  .superRefine((v, ctx) => {
    const problem = v.from && v.to ? dayRangeProblem(v.from, v.to) : null;
    if (problem) ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message });
  });
export type UpstreamReconciliationInput = z.infer<typeof upstreamReconciliationInput>;

/** `POST /admin/upstreams/:id/reconcile { date }`: that day fetched now; without a date, the last 7 days. */
export const reconcileUpstreamInput = upstreamIdInput.extend({ date: statementDate('date').optional() });
export type ReconcileUpstreamInput = z.infer<typeof reconcileUpstreamInput>;

/** One day of the reconciliation; bytes as decimal strings (they can pass 2^53). */
export interface ReconciliationDay {
  date: string;
  /** null: not fetched from the provider (yet). */
  providerBytes: string | null;
  ourBytes: string;
  /** provider - ours; null while providerBytes is. */
  driftBytes: string | null;
  /** driftBytes over ourBytes in percent, 2 decimals; null when ourBytes is 0 or providerBytes null. */
  driftPercent: number | null;
  /** providerBytes at the upstream's cost per GB, rounded to the cent; null while providerBytes is. */
  costCents: number | null;
  fetchedAt: string | null;
}
