import { stringify } from 'csv-stringify/sync';
import { usageHistoryInput } from '@proxyhub/core';
import { RestResponse, restRoute } from './rest';

/** Usage over time (cookie or Bearer API key); `?format=csv` answers the points as CSV. */
export const usageRoutes = [
  restRoute({ method: 'GET', url: '/api/usage', query: usageHistoryInput }, async (caller, input) => {
    const usage = await caller.usage.history(input);
    if (input?.format !== 'csv') return usage;
    const csv = stringify(
      usage.points.map((p) => [p.start, p.bytesUp, p.bytesDown, p.sessions]),
      { header: true, columns: ['start', 'bytesUp', 'bytesDown', 'sessions'] },
    );
    return new RestResponse(200, csv, 'text/csv; charset=utf-8');
  }),
];
