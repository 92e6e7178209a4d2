import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { bytes, createdAt, ts } from './columns';
import { payments } from './credits';
import { adminUsers, users } from './users';

export const PROMOTION_KINDS = ['credit', 'bonus'] as const;

/**
 * Multi-use codes: a `credit` promotion gives `creditsBytes` when redeemed, a `bonus` one adds
 * `bonusPercent` % to a paid crypto order. `redemptions` is claimed under the row lock, so no more
 * than `maxRedemptions` ever succeed.
 */
export const promotions = pgTable(
  'promotions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Uppercase; unique among promotions here and checked against top-up codes on creation. */
    code: text('code').notNull(),
    kind: text('kind', { enum: PROMOTION_KINDS }).notNull(),
    creditsBytes: bytes('credits_bytes'),
    bonusPercent: integer('bonus_percent'),
    maxRedemptions: integer('max_redemptions').notNull(),
    maxPerUser: integer('max_per_user').notNull().default(1),
    firstPurchaseOnly: boolean('first_purchase_only').notNull().default(false),
    expiresAt: ts('expires_at'),
    campaign: text('campaign'),
    enabled: boolean('enabled').notNull().default(true),
    redemptions: integer('redemptions').notNull().default(0),
    createdByAdminId: uuid('created_by_admin_id').references(() => adminUsers.id),
    createdBy: text('created_by').notNull().default('admin'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('promotions_code_key').on(t.code)],
);

/** One row per use: a credit redeemed, or a paid order that received a bonus. */
export const promotionRedemptions = pgTable(
  'promotion_redemptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    promotionId: uuid('promotion_id')
      .notNull()
      .references(() => promotions.id),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    paymentId: uuid('payment_id').references(() => payments.id),
    creditedBytes: bytes('credited_bytes'),
    revenueCents: integer('revenue_cents').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index('promotion_redemptions_user_idx').on(t.promotionId, t.userId), uniqueIndex('promotion_redemptions_payment_key').on(t.paymentId)],
);

/** Prices the operator sets (one row, id 'pricing'); absent: the spec's defaults. */
export const pricingSettings = pgTable('pricing_settings', {
  id: text('id').primaryKey(),
  pricePerGbCents: integer('price_per_gb_cents').notNull(),
  minOrderCents: integer('min_order_cents').notNull(),
  tiers: jsonb('tiers').$type<Array<{ minGb: number; pricePerGbCents: number }>>().notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});
