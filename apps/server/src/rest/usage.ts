import { stringify } from 'csv-stringify/sync';
import { formatGb, GB_CSV_COLUMN, usageBurnInput, usageHistoryInput, usageBurnOutput, usageHistoryOutput } from '@proxyhub/core';
import { RestResponse, restRoute } from './rest';

/** Usage over time (cookie or Bearer API key); `?format=csv` answers the points as CSV. */
export const usageRoutes = [
  restRoute(
    {
      method: 'GET',
      url: '/api/usage',
      summary: 'Traffic over time in points (bytes up and down, sessions); `format=csv` for CSV.',
      response: usageHistoryOutput,
      text: { type: 'text/csv', description: 'With `format=csv`: the points as CSV.' },
      query: usageHistoryInput,
    },
    async (caller, input) => {
      const usage = await caller.usage.history(input);
      if (input?.format !== 'csv') return usage;
      const csv = stringify(
        usage.points.map((p) => [p.start, p.bytesUp, p.bytesDown, p.sessions, formatGb(BigInt(p.bytesUp) + BigInt(p.bytesDown))]),
        // Bytes exact; the GB column (up and down together) names its unit.
        { header: true, columns: ['start', 'bytesUp', 'bytesDown', 'sessions', GB_CSV_COLUMN] },
      );
      return new RestResponse(200, csv, 'text/csv; charset=utf-8');
    },
  ),
  // `{ hosts: [{ host, category, bytes, costCents }], totalBytes, blockableBytes, ... }`: what blocking those hosts would have saved.
  restRoute(
    {
      method: 'GET',
      url: '/api/usage/burn',
      summary: 'Where traffic went by host and what blocking those hosts would have saved.',
      response: usageBurnOutput,
      query: usageBurnInput,
    },
    (caller, input) => caller.usage.burn(input),
  ),
];
