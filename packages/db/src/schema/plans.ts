import { PLAN_PERIODS } from '@proxyhub/core';
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { bytes, createdAt, ts } from './columns';
import { users } from './users';

/**
 * Plans the operator sells: `gbPerPeriod` GB each `period` for `priceCents`. An inactive plan takes
 * no new subscriptions; one with subscriptions is never deleted (its rows name it).
 */
export const plans = pgTable(
  'plans',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    gbPerPeriod: integer('gb_per_period').notNull(),
    priceCents: integer('price_cents').notNull(),
    period: text('period', { enum: PLAN_PERIODS }).notNull(),
    rollover: boolean('rollover').notNull().default(false),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    check('plans_gb_positive', sql`${t.gbPerPeriod} > 0`),
    check('plans_price_positive', sql`${t.priceCents} > 0`),
    check('plans_period_known', sql`${t.period} in ('month', 'week')`),
  ],
);

export const SUBSCRIPTION_STATUSES = ['active', 'lapsed', 'cancelled'] as const;

/**
 * A user's subscription to a plan, made when its first period's payment is credited. `period` is
 * the number of the current period (1, 2, ...), running from `periodStart` to `periodEnd`;
 * `paidPeriods` is how many periods have been paid (one ahead of `period` once the renewal is
 * paid). `cancelled`: renewal stopped, the current period still runs to its end. One active (or
 * cancelled and still running) subscription per plan per user: the partial unique index decides.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    planId: uuid('plan_id')
      .notNull()
      .references(() => plans.id),
    status: text('status', { enum: SUBSCRIPTION_STATUSES }).notNull().default('active'),
    period: integer('period').notNull().default(1),
    paidPeriods: integer('paid_periods').notNull().default(1),
    periodStart: ts('period_start').notNull(),
    periodEnd: ts('period_end').notNull(),
    /** The period whose 7-day and 1-day renewal notices were sent (each once per period). */
    notice7Period: integer('notice7_period').notNull().default(0),
    notice1Period: integer('notice1_period').notNull().default(0),
    /** Set when a period's end has been processed (expiry, next period, or lapse): null while running. */
    endedAt: ts('ended_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('subscriptions_user_idx').on(t.userId),
    index('subscriptions_period_end_idx')
      .on(t.periodEnd)
      .where(sql`${t.endedAt} is null`),
    uniqueIndex('subscriptions_one_running')
      .on(t.userId, t.planId)
      .where(sql`${t.endedAt} is null`),
  ],
);

/**
 * One period's allowance: `grantedBytes` of the plan plus `carriedBytes` rolled over from the
 * period before, spendable until `endsAt`. `remainingBytes` is the part still in the user's wallet
 * (not leased to a gateway, not used); it is part of users.credits_bytes, so the ledger invariant
 * is the wallet's. Leases record the bucket they drew from (gateway_leases.plan_bucket_id).
 */
export const planBuckets = pgTable(
  'plan_buckets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    subscriptionId: uuid('subscription_id')
      .notNull()
      .references(() => subscriptions.id),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    period: integer('period').notNull(),
    grantedBytes: bytes('granted_bytes'),
    carriedBytes: bytes('carried_bytes'),
    remainingBytes: bytes('remaining_bytes'),
    /** Reported as used from this bucket's leases (and charged beyond them). */
    usedBytes: bytes('used_bytes'),
    startsAt: ts('starts_at').notNull(),
    endsAt: ts('ends_at').notNull(),
    /** When its remainder expired or rolled over; a closed bucket is spent no more. */
    closedAt: ts('closed_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('plan_buckets_period_key').on(t.subscriptionId, t.period),
    index('plan_buckets_open_idx')
      .on(t.userId, t.endsAt)
      .where(sql`${t.closedAt} is null`),
    check('plan_buckets_remaining_not_negative', sql`${t.remainingBytes} >= 0`),
  ],
);
