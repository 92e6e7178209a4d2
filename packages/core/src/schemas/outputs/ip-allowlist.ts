import { z } from 'zod';

/** What the `ipAllowlist.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const ipAllowlistGetOutput = z.object({
  currentAddress: z.string(),
  entryPorts: z.object({ from: z.number(), to: z.number() }).nullable(),
  entries: z.array(
    z.union([
      z.string(),
      z.object({
        entry: z.string(),
        ports: z.array(z.object({ port: z.number(), location: z.string(), durationMinutes: z.number(), proxyAccountId: z.string().optional() })),
      }),
    ]),
  ),
  passwordless: z.boolean(),
});

export const ipAllowlistSetOutput = z.object({
  notes: z.array(z.string()),
  entries: z.array(
    z.union([
      z.string(),
      z.object({
        entry: z.string(),
        ports: z.array(z.object({ port: z.number(), location: z.string(), durationMinutes: z.number(), proxyAccountId: z.string().optional() })),
      }),
    ]),
  ),
  passwordless: z.boolean(),
});
