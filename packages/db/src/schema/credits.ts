import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { PAYMENT_STATUSES } from '@proxyhub/core';
import { bigint } from 'drizzle-orm/pg-core';
import { bytes, createdAt, ts } from './columns';
import { plans } from './plans';
import { batches } from './proxies';
import { adminUsers, users } from './users';

export const topupCodes = pgTable(
  'topup_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    code: text('code').notNull(),
    creditsBytes: bytes('credits_bytes'),
    expiresAt: ts('expires_at'),
    createdByAdminId: uuid('created_by_admin_id').references(() => adminUsers.id),
    /** Internal tools mint codes too; they are recorded by name. */
    createdBy: text('created_by').notNull().default('admin'),
    createdAt: createdAt(),
    redeemedBy: uuid('redeemed_by').references(() => users.id),
    redeemedAt: ts('redeemed_at'),
    /** An admin withdrew an unused code: it redeems as an unknown one. */
    revokedAt: ts('revoked_at'),
    /** A gift: its bytes came from this user's balance; revoking it (the giver cancels) gives them back. */
    giftedBy: uuid('gifted_by').references(() => users.id),
  },
  (t) => [
    uniqueIndex('topup_codes_code_key').on(t.code),
    index('topup_codes_created_idx').on(t.createdAt.desc(), t.id.desc()),
    index('topup_codes_gifted_by_idx').on(t.giftedBy, t.createdAt.desc()),
  ],
);

export { PAYMENT_STATUSES };

export const payments = pgTable(
  'payments',
  {
    /** Also the order id sent to the provider. */
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    provider: text('provider').notNull(),
    providerInvoiceId: text('provider_invoice_id'),
    providerPaymentId: text('provider_payment_id'),
    invoiceUrl: text('invoice_url'),
    gbAmount: integer('gb_amount').notNull(),
    priceCents: integer('price_cents').notNull(),
    /** What the order credits when paid in full: its GB plus any promotion bonus. */
    creditsBytes: bytes('credits_bytes'),
    /** The part of creditsBytes that is a promotion's bonus (counted only if the promotion still has room when paid). */
    bonusBytes: bytes('bonus_bytes'),
    promotionId: uuid('promotion_id'),
    /** Why the promotion's bonus was not credited when the order was paid (the receipt says it); null otherwise. */
    bonusNote: text('bonus_note'),
    /** The payer as the provider identifies them, where it does (the referral rule compares it); null otherwise. */
    payerId: text('payer_id'),
    /** Credited so far: a partial payment credits its share, a later full one the rest, never past creditsBytes. */
    creditedBytes: bytes('credited_bytes'),
    /** What the provider reports as paid, in cents, once it reports an amount (partial payments). */
    paidCents: integer('paid_cents'),
    status: text('status', { enum: PAYMENT_STATUSES }).notNull().default('waiting'),
    creditedAt: ts('credited_at'),
    /** `<year>-<000001>`, gapless per UTC year of creditedAt: given once, when the order is first credited. */
    receiptNumber: text('receipt_number'),
    /** The client's key for this order (a double click sends it twice); cleared when a later order reuses it after the window. */
    idempotencyKey: text('idempotency_key'),
    /** A plan period's payment (null: pay-as-you-go GB): credited as the plan's allowance, never as GB. */
    planId: uuid('plan_id').references(() => plans.id),
    /** The subscription a renewal pays for (null for the first period: the subscription is made when it is paid). */
    subscriptionId: uuid('subscription_id'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('payments_user_idx').on(t.userId),
    index('payments_provider_invoice_idx').on(t.provider, t.providerInvoiceId),
    index('payments_payer_idx')
      .on(t.payerId)
      .where(sql`${t.payerId} is not null`),
    uniqueIndex('payments_user_idempotency_key').on(t.userId, t.idempotencyKey),
    uniqueIndex('payments_receipt_number').on(t.receiptNumber),
  ],
);

/** Every webhook delivery and every status change, kept for the user's and admin's history. */
export const paymentEvents = pgTable(
  'payment_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    paymentId: uuid('payment_id')
      .notNull()
      .references(() => payments.id),
    status: text('status').notNull(),
    source: text('source').notNull(),
    payload: jsonb('payload'),
    createdAt: createdAt(),
  },
  (t) => [index('payment_events_payment_idx').on(t.paymentId)],
);

export const CREDIT_KINDS = [
  'code',
  'payment',
  'batch',
  'batch_association',
  'admin_adjustment',
  'reversal',
  'gift',
  'referral',
  'plan_grant',
  'plan_expire',
] as const;

/**
 * Append-only ledger. `sourceKey` is unique (`code:<id>`, `payment:<id>`, ...), so a repeat of the
 * same source cannot credit twice. Amounts may be negative (reversals, moves out of a batch).
 */
export const creditEntries = pgTable(
  'credit_entries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id').references(() => users.id),
    batchId: uuid('batch_id').references(() => batches.id),
    kind: text('kind', { enum: CREDIT_KINDS }).notNull(),
    sourceKey: text('source_key').notNull(),
    amountBytes: bigint('amount_bytes', { mode: 'bigint' }).notNull(),
    note: text('note'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('credit_entries_source_key').on(t.sourceKey), index('credit_entries_user_idx').on(t.userId)],
);

/**
 * What a referrer earns for one credit of a referred user's crypto order: pending until `dueAt`,
 * then credited once (`creditedAt`, ledger source `referral:<id>`), or cancelled (`cancelledAt`)
 * when the order is refunded first. `source` is the order credit's ledger source: one per credit.
 */
export const referralCredits = pgTable(
  'referral_credits',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    referrerId: uuid('referrer_id')
      .notNull()
      .references(() => users.id),
    referredUserId: uuid('referred_user_id')
      .notNull()
      .references(() => users.id),
    paymentId: uuid('payment_id')
      .notNull()
      .references(() => payments.id),
    source: text('source').notNull(),
    amountBytes: bytes('amount_bytes'),
    dueAt: ts('due_at').notNull(),
    creditedAt: ts('credited_at'),
    cancelledAt: ts('cancelled_at'),
    /** Why this order earned nothing (referrer and referee are not strangers); set with cancelledAt. */
    ineligibleReason: text('ineligible_reason'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('referral_credits_source_key').on(t.source),
    index('referral_credits_referrer_idx').on(t.referrerId, t.createdAt.desc()),
    index('referral_credits_payment_idx').on(t.paymentId),
    index('referral_credits_due_idx')
      .on(t.dueAt)
      .where(sql`${t.creditedAt} is null and ${t.cancelledAt} is null`),
  ],
);
