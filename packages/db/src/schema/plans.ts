import { PLAN_PERIODS } from '@proxyhub/core';
import { sql } from 'drizzle-orm';
import { boolean, check, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns';

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
