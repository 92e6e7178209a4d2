import { reconcileUpstreamInput, upstreamReconciliationInput, adminReconcileUpstreamOutput, adminUpstreamReconciliationOutput } from '@proxyhub/core';
import { reconciliationCsvText } from '@proxyhub/api';
import { RestResponse, restRoute, withSuccess } from './rest';

/** The provider's meter against ours: per UTC day, as JSON or (`format=csv`) the same rows as CSV; a fetch on demand. */
export const upstreamReconciliationRoutes = [
  restRoute(
    {
      method: 'GET',
      url: '/admin/upstreams/:id/reconciliation',
      summary: "The provider's meter against ours per UTC day; `format=csv` for CSV.",
      response: adminUpstreamReconciliationOutput,
      text: { type: 'text/csv', description: 'With `format=csv`: the days as CSV.' },
      query: upstreamReconciliationInput,
      pathParams: true,
    },
    async (caller, input) => {
      const r = await caller.admin.upstreamReconciliation(input);
      if (input.format === 'csv') return new RestResponse(200, reconciliationCsvText(r.days), 'text/csv; charset=utf-8');
      return r;
    },
  ),
  restRoute(
    {
      method: 'POST',
      url: '/admin/upstreams/:id/reconcile',
      summary: `Fetches the provider's meter now and compares it with ours.`,
      response: withSuccess(adminReconcileUpstreamOutput),
      body: reconcileUpstreamInput,
      pathParams: true,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.admin.reconcileUpstream(input)),
    }),
  ),
];
