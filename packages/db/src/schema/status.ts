import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns';

/**
 * The quality prober's measurements (services/status): one row per offered country and enabled
 * upstream serving it (upstream null: the gateways' default route) per probe period, kept 90 days.
 * No foreign key to upstreams: a deleted upstream's history still counts for its country.
 */
export const qualityProbes = pgTable(
  'quality_probes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    country: text('country').notNull(),
    upstreamId: uuid('upstream_id'),
    at: ts('at').notNull(),
    ok: boolean('ok').notNull(),
    /** From dialling the gateway to the tunnel being open; null when it never opened. */
    connectMs: integer('connect_ms'),
    /** The exit address's country as the check page showed it; null when unknown or failed. */
    exitCountry: text('exit_country'),
  },
  (t) => [index('quality_probes_country_at_idx').on(t.country, t.at), index('quality_probes_at_idx').on(t.at)],
);

/** A country's degraded spell: opened when its last probes fail too often, closed when they pass again. */
export const qualityIncidents = pgTable(
  'quality_incidents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    country: text('country').notNull(),
    openedAt: ts('opened_at').notNull(),
    closedAt: ts('closed_at'),
  },
  (t) => [
    // At most one open incident per country: the INSERT that opens it decides under concurrency.
    uniqueIndex('quality_incidents_one_open_key')
      .on(t.country)
      .where(sql`${t.closedAt} IS NULL`),
    index('quality_incidents_opened_idx').on(t.openedAt),
  ],
);

/** Who hears of incidents: an email address (once confirmed by its link) or a Telegram chat (confirmed by sending the command). */
export const statusSubscriptions = pgTable(
  'status_subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Lower-cased. */
    email: text('email'),
    telegramChatId: bigint('telegram_chat_id', { mode: 'number' }),
    confirmedAt: ts('confirmed_at'),
    createdAt: createdAt(),
    /** The language its mails or messages are written in: the subscriber's browser's or Telegram's at subscribing. */
    locale: text('locale').notNull().default('en'),
  },
  (t) => [
    uniqueIndex('status_subscriptions_email_key').on(t.email),
    uniqueIndex('status_subscriptions_chat_key').on(t.telegramChatId),
    check('status_subscriptions_one_address', sql`(${t.email} IS NULL) <> (${t.telegramChatId} IS NULL)`),
  ],
);

export const STATUS_TOKEN_PURPOSES = ['confirm', 'unsubscribe'] as const;

/** The links of subscription mails: random, only their SHA-256 stored, expiring, used once. */
export const statusSubscriptionTokens = pgTable(
  'status_subscription_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    subscriptionId: uuid('subscription_id')
      .notNull()
      .references(() => statusSubscriptions.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: STATUS_TOKEN_PURPOSES }).notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
  },
  (t) => [index('status_subscription_tokens_sub_idx').on(t.subscriptionId)],
);

export const STATUS_NOTICE_KINDS = ['opened', 'closed'] as const;

/**
 * The mails an incident owes: one row per subscriber, incident and kind, made in the transaction
 * that opens or closes it; a sender claims a row (sets claimed_at) before it sends, so each is
 * sent at most once whatever runs at the same time.
 */
export const statusNotices = pgTable(
  'status_notices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    subscriptionId: uuid('subscription_id')
      .notNull()
      .references(() => statusSubscriptions.id, { onDelete: 'cascade' }),
    incidentId: uuid('incident_id')
      .notNull()
      .references(() => qualityIncidents.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: STATUS_NOTICE_KINDS }).notNull(),
    createdAt: createdAt(),
    claimedAt: ts('claimed_at'),
  },
  (t) => [
    uniqueIndex('status_notices_once_key').on(t.subscriptionId, t.incidentId, t.kind),
    index('status_notices_pending_idx')
      .on(t.createdAt)
      .where(sql`${t.claimedAt} IS NULL`),
  ],
);
