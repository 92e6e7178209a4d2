import { z } from 'zod';
import { CONNECTION_OUTCOMES } from '../connections';

/** What the `usage.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

/** One hour's or day's traffic. */
export const usagePointOutput = z.object({ start: z.string(), bytesUp: z.string(), bytesDown: z.string(), sessions: z.number() });
/** One country's traffic and, from the connection log, its success rate and median connect time. */
export const usageCountryOutput = z.object({
  country: z.string().nullable(),
  bytes: z.string(),
  okRate: z.number().nullable(),
  p50ConnectMs: z.number().nullable(),
});

export const usageHistoryOutput = z.object({
  granularity: z.enum(['day', 'hour']),
  from: z.string(),
  to: z.string(),
  points: z.array(usagePointOutput),
  totals: z.object({ bytesUp: z.string(), bytesDown: z.string(), sessions: z.number() }),
  byCountry: z.array(usageCountryOutput),
  byAccount: z.array(z.object({ proxyUserId: z.string(), name: z.string(), bytes: z.string() })),
  byTarget: z.array(
    z.object({ host: z.string(), bytes: z.string(), connections: z.number(), okRate: z.number().nullable(), p50ConnectMs: z.number().nullable() }),
  ),
  byOutcome: z.array(
    z.object({
      outcome: z.enum(CONNECTION_OUTCOMES),
      connections: z.number(),
    }),
  ),
});

/** One connection record as `usage.connections` lists it and `usage.connection` answers it. */
const connectionOutput = z.object({
  id: z.string(),
  state: z.string(),
  proxyUserId: z.string(),
  proxyAccountId: z.string(),
  country: z.string(),
  city: z.string(),
  protocol: z.string(),
  bytesUp: z.string(),
  bytesDown: z.string(),
  target: z.string(),
  reason: z.string(),
  outcome: z.enum(CONNECTION_OUTCOMES),
  startedAt: z.string(),
  endedAt: z.string(),
  session: z.string(),
  zip: z.string(),
  asn: z.string(),
  billedBytes: z.string(),
  connectMs: z.number().nullable(),
});

export const usageConnectionsOutput = z.object({ connections: z.array(connectionOutput), nextCursor: z.string().nullable() });

export const usageConnectionOutput = z.object({ connection: connectionOutput });

export const usageBurnOutput = z.object({
  from: z.string(),
  to: z.string(),
  pricePerGbCents: z.number(),
  hosts: z.array(
    z.object({
      host: z.string(),
      category: z.enum(['analytics', 'advertising', 'fonts', 'media_cdn', 'telemetry', 'captcha']),
      bytes: z.string(),
      costCents: z.number(),
    }),
  ),
  totalBytes: z.string(),
  blockableBytes: z.string(),
  blockableCostCents: z.number(),
});
