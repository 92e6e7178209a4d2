import { z } from 'zod';

export const USAGE_GRANULARITIES = ['hour', 'day'] as const;
export type UsageGranularity = (typeof USAGE_GRANULARITIES)[number];

/** Points one call may ask for: 31 days of hours, 366 days of days. */
export const USAGE_MAX_POINTS: Record<UsageGranularity, number> = { hour: 31 * 24, day: 366 };

// A date, or a date and time with an optional offset (none means UTC).
const ISO_RE = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:?\d\d)?)?$/;

/** An input time as a Date: a date alone is its UTC midnight, a time without an offset is UTC. */
export function parseIsoTime(v: string): Date {
  return new Date(!v.includes('T') || /(Z|[+-]\d\d:?\d\d)$/.test(v) ? v : `${v}Z`);
}

export const isoTime = (field: string) =>
  z
    .string({ error: `${field} must be an ISO 8601 date or time` })
    .refine((v) => ISO_RE.test(v) && !Number.isNaN(parseIsoTime(v).getTime()), { error: `${field} must be an ISO 8601 date or time` });

/** Usage over time for the signed-in user; every field optional (the last 24 hours by hour). */
export const usageHistoryInput = z
  .object({
    granularity: z.enum(USAGE_GRANULARITIES, { error: 'Granularity must be hour or day' }).optional(),
    from: isoTime('From').optional(),
    to: isoTime('To').optional(),
    /** REST only: `csv` answers the points as text/csv. */
    format: z.enum(['json', 'csv'], { error: 'Format must be json or csv' }).optional(),
  })
  .optional();
export type UsageHistoryInput = z.infer<typeof usageHistoryInput>;

/** GET /api/usage/burn: the range of the connection log to read (default: this UTC month so far). */
export const usageBurnInput = z
  .object({
    from: isoTime('From').optional(),
    to: isoTime('To').optional(),
  })
  .optional();
export type UsageBurnInput = z.infer<typeof usageBurnInput>;
