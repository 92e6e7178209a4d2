import { z } from 'zod';

/** What the `site.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const siteStatusOutput = z.object({
  status: z.enum(['down', 'operational', 'degraded']),
  gatewaysUp: z.number(),
  gatewaysTotal: z.number(),
  uptime30d: z.number().nullable(),
  days: z.array(z.object({ date: z.string(), uptime: z.number().nullable() })),
});

export const sitePageOutput = z.object({ title: z.string(), html: z.string() });

export const siteSellerOutput = z.object({
  companyName: z.string(),
  address: z.string(),
  supportEmail: z.string(),
  legalUpdatedOn: z.string(),
  legalEffectiveOn: z.string(),
});
