import { sql } from 'drizzle-orm';
import { check, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

/** The seller named on the site, its legal pages, mails and receipts: one row, absent until an owner sets it. */
export const sellerSettings = pgTable(
  'seller_settings',
  {
    id: integer('id').primaryKey().default(1),
    companyName: text('company_name').notNull(),
    /** Lines joined by \n. */
    address: text('address').notNull(),
    supportEmail: text('support_email').notNull(),
    /** YYYY-MM-DD, as the owner entered them. */
    legalUpdatedOn: text('legal_updated_on').notNull(),
    legalEffectiveOn: text('legal_effective_on').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [check('seller_settings_single_row', sql`${t.id} = 1`)],
);

/**
 * The last receipt number given in each calendar year (UTC). A credit takes the next one with an
 * upsert that holds the year's row lock until its transaction ends, so numbers are gapless: a rolled
 * back credit gives its number back, and two credits never read the same last number.
 */
export const receiptCounters = pgTable('receipt_counters', {
  year: integer('year').primaryKey(),
  lastNumber: integer('last_number').notNull(),
});
