import { z } from 'zod';

/** What the `status.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const statusQualityOutput = z.object({
  countries: z.array(
    z.object({
      country: z.string(),
      okRate24h: z.number().nullable(),
      p50ConnectMs: z.number().nullable(),
      p95ConnectMs: z.number().nullable(),
      exitCountryMatchRate: z.number().nullable(),
      degraded: z.boolean(),
      days: z.array(z.object({ date: z.string(), okRate: z.number() })),
    }),
  ),
});

export const statusSubscribeOutput = z.object({ success: z.literal(true), message: z.string() });

export const statusConfirmOutput = z.object({ success: z.literal(true), message: z.string() });

export const statusUnsubscribeOutput = z.object({ success: z.literal(true), message: z.string() });
