import { reconcileUpstreamInput, upstreamReconciliationInput } from '@proxyhub/core';
import { reconciliationCsvText } from '@proxyhub/api';
import { RestResponse, restRoute } from './rest';

/** The provider's meter against ours: per UTC day, as JSON or (`format=csv`) the same rows as CSV; a fetch on demand. */
export const upstreamReconciliationRoutes = [
  restRoute({ method: 'GET', url: '/admin/upstreams/:id/reconciliation', query: upstreamReconciliationInput, pathParams: true }, async (caller, input) => {
    const r = await caller.admin.upstreamReconciliation(input);
    if (input.format === 'csv') return new RestResponse(200, reconciliationCsvText(r.days), 'text/csv; charset=utf-8');
    return r;
  }),
  restRoute({ method: 'POST', url: '/admin/upstreams/:id/reconcile', body: reconcileUpstreamInput, pathParams: true }, async (caller, input) => ({
    success: true,
    ...(await caller.admin.reconcileUpstream(input)),
  })),
];
