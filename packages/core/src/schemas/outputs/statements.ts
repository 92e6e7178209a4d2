import { z } from 'zod';

/** What the `statements.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const statementsKeyOutput = z.object({ algorithm: z.string(), publicKey: z.string() });

export const statementsListOutput = z.object({
  statements: z.array(
    z.object({
      account: z.object({ id: z.string(), proxyUserId: z.string() }),
      date: z.string(),
      totals: z.object({ bytes: z.string(), billedBytes: z.string(), connections: z.number() }),
      byCountry: z.array(z.object({ country: z.string(), bytes: z.string(), billedBytes: z.string(), connections: z.number() })),
      connectionsDigest: z.string(),
      previous: z.string().nullable(),
      final: z.boolean(),
      signature: z.string(),
    }),
  ),
});

export const statementsDayOutput = z.object({
  statements: z.array(
    z.object({
      account: z.object({ id: z.string(), proxyUserId: z.string() }),
      date: z.string(),
      totals: z.object({ bytes: z.string(), billedBytes: z.string(), connections: z.number() }),
      byCountry: z.array(z.object({ country: z.string(), bytes: z.string(), billedBytes: z.string(), connections: z.number() })),
      connectionsDigest: z.string(),
      previous: z.string().nullable(),
      final: z.boolean(),
      signature: z.string(),
    }),
  ),
  date: z.string(),
});

export const statementsConnectionsCsvOutput = z.string();
