import { z } from 'zod';

/** What the `plans.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const plansListOutput = z.object({
  plans: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      gbPerPeriod: z.number(),
      priceCents: z.number(),
      period: z.enum(['month', 'week']),
      rollover: z.boolean(),
      active: z.boolean(),
    }),
  ),
});
