import { sql } from 'drizzle-orm';
import { bigint, check, date, pgTable, primaryKey, uuid } from 'drizzle-orm/pg-core';
import { bytes, ts } from './columns';
import { upstreams } from './network';

/**
 * What an upstream provider says it metered for one UTC day (its usage API), one row per upstream
 * and day, set again on each fetch until the day is final (fetched once it was 3 days old:
 * providers finish their counts late), with our own figure (the connection log's bytes through the
 * upstream that day) as it was at that fetch: the log's days are dropped after CONNECTION_LOG_DAYS,
 * and older days answer this one. Null: fetched before the figure was stored.
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
    ourBytes: bigint('our_bytes', { mode: 'bigint' }),
    fetchedAt: ts('fetched_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'upstream_provider_days_pk', columns: [t.upstreamId, t.day] }),
    check('upstream_provider_days_bytes_nonnegative', sql`${t.providerBytes} >= 0`),
  ],
);
