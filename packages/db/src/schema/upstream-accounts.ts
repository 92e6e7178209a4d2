import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { ADMIN_ALERT_KINDS, UPSTREAM_ACCOUNT_STATUSES, UPSTREAM_BALANCE_LEVELS, UPSTREAM_PROVIDERS } from '@proxyhub/core';
import { createdAt, ts } from './columns';
import { upstreams } from './network';

/**
 * An upstream's account at its provider: the API that tells its traffic left and its usage per
 * day. The API key is AES-256-GCM ciphertext (the secret box of upstream passwords) and never
 * answered. The balance watch writes the last balance, its level and the status; `level` is what
 * the balance last said (kept through a failed check), so a failed check between two low readings
 * is not a new crossing.
 */
export const upstreamAccounts = pgTable(
  'upstream_accounts',
  {
    upstreamId: uuid('upstream_id')
      .primaryKey()
      .references(() => upstreams.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: UPSTREAM_PROVIDERS }).notNull(),
    /** '' when no key was given. */
    apiKeyEnc: text('api_key_enc').notNull().default(''),
    balanceUrl: text('balance_url'),
    usageUrl: text('usage_url'),
    /** Below this the level is low; 0: only dry counts. */
    lowBalanceBytes: bigint('low_balance_bytes', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    /** Traffic left at the provider at the last good check; null before one. */
    balanceBytes: bigint('balance_bytes', { mode: 'bigint' }),
    /** When the balance above was read. */
    checkedAt: ts('checked_at'),
    level: text('level', { enum: UPSTREAM_BALANCE_LEVELS }),
    status: text('status', { enum: UPSTREAM_ACCOUNT_STATUSES }).notNull().default('unchecked'),
    /** Why the last check failed (status error); null otherwise. */
    error: text('error'),
    /** When the last check, good or failed, ended. */
    lastCheckAt: ts('last_check_at'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    check('upstream_accounts_low_nonnegative', sql`${t.lowBalanceBytes} >= 0`),
    check('upstream_accounts_balance_nonnegative', sql`${t.balanceBytes} >= 0`),
  ],
);

/**
 * The admin's alerts (GET /admin/alerts): a provider account that went low or dry, a day whose
 * provider count drifted from ours. `upstream_id` has no foreign key: an alert outlives the
 * upstream it was about. `dedupe_key` makes an alert that may be noticed many times (one per
 * upstream and day) one row.
 */
export const adminAlerts = pgTable(
  'admin_alerts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind', { enum: ADMIN_ALERT_KINDS }).notNull(),
    upstreamId: uuid('upstream_id'),
    message: text('message').notNull(),
    dedupeKey: text('dedupe_key'),
    createdAt: createdAt(),
    resolvedAt: ts('resolved_at'),
  },
  (t) => [
    uniqueIndex('admin_alerts_dedupe_key').on(t.dedupeKey),
    index('admin_alerts_created_idx').on(t.createdAt),
    index('admin_alerts_open_idx')
      .on(t.upstreamId, t.kind)
      .where(sql`${t.resolvedAt} IS NULL`),
  ],
);

/**
 * Periodic jobs run by exactly one server of the fleet per period: the first to insert
 * (job, period) runs it, the others find the row and skip. `period` is the job's own key (a number
 * of periods since the epoch, a UTC day).
 */
export const jobClaims = pgTable(
  'job_claims',
  {
    job: text('job').notNull(),
    period: text('period').notNull(),
    claimedBy: text('claimed_by').notNull(),
    claimedAt: ts('claimed_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.job, t.period] }), index('job_claims_claimed_idx').on(t.claimedAt)],
);
