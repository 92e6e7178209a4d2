import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns';
import { users } from './users';

/** A customer's webhook: where to POST, which events, and the signing secret (AES-256-GCM, shown once). */
export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    secretEnc: text('secret_enc').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('webhooks_user_idx').on(t.userId)],
);

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** One attempt at a delivery: when, the HTTP status or the error, how long it took. */
export interface WebhookAttempt {
  at: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * The outbox: one row per event per subscribed webhook, written in the transaction that made the
 * change, sent by the delivery job after it committed. `dedupe_key` makes an event that may be
 * noticed many times (a cap found reached on every lease request) one delivery.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    eventId: uuid('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The exact JSON body sent (and signed). */
    body: text('body').notNull(),
    dedupeKey: text('dedupe_key'),
    /** The delivery a customer's Resend repeats (resends are counted per webhook per hour). */
    resendOf: uuid('resend_of'),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default('pending'),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    attempts: jsonb('attempts').$type<WebhookAttempt[]>().notNull().default([]),
    attemptCount: integer('attempt_count').notNull().default(0),
    createdAt: createdAt(),
    deliveredAt: ts('delivered_at'),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_webhook_idx').on(t.webhookId, t.createdAt),
    uniqueIndex('webhook_deliveries_dedupe_key').on(t.webhookId, t.dedupeKey),
  ],
);
