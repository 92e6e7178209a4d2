import { z } from 'zod';

/** What the `adminAlerts.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const adminAlertsListOutput = z.object({
  alerts: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(['upstream_low', 'upstream_dry', 'upstream_drift']),
      upstreamId: z.string().nullable(),
      message: z.string(),
      createdAt: z.string(),
      resolvedAt: z.string().nullable(),
    }),
  ),
  openCount: z.number(),
});
