import { sql } from 'drizzle-orm';
import { check, date, pgTable, primaryKey, uuid } from 'drizzle-orm/pg-core';
import { bytes, ts } from './columns';
import { upstreams } from './network';

/**
 * What an upstream provider says it metered for one UTC day (its usage API), one row per upstream
 * and day, set again on each fetch until the day is final (fetched once it was 3 days old:
 * providers finish their counts late). Our own figure is not stored here: usage_daily holds it.
 */
export const upstreamProviderDays = pgTable(
  'upstream_provider_days',
  {
    upstreamId: uuid('upstream_id')
      .notNull()
      .references(() => upstreams.id, { onDelete: 'cascade' }),
    /** YYYY-MM-DD, UTC. */
    day: date('day', { mode: 'string' }).notNull(),
    providerBytes: bytes('provider_bytes'),
    fetchedAt: ts('fetched_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'upstream_provider_days_pk', columns: [t.upstreamId, t.day] }),
    check('upstream_provider_days_bytes_nonnegative', sql`${t.providerBytes} >= 0`),
  ],
);
