import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns';
import { adminUsers, users } from './users';

/**
 * A Telegram chat linked to one account: a user's or an admin's (exactly one). One chat, one
 * account: linking a chat again moves it, and an account has at most one chat.
 */
export const telegramChats = pgTable(
  'telegram_chats',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    chatId: bigint('chat_id', { mode: 'number' }).notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    adminId: uuid('admin_id').references(() => adminUsers.id, { onDelete: 'cascade' }),
    linkedAt: ts('linked_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('telegram_chats_chat_key').on(t.chatId),
    uniqueIndex('telegram_chats_user_key').on(t.userId),
    uniqueIndex('telegram_chats_admin_key').on(t.adminId),
    check('telegram_chats_one_owner', sql`(${t.userId} IS NULL) <> (${t.adminId} IS NULL)`),
  ],
);

/** One-time codes that link a chat (`/start <code>`): only the SHA-256 is stored, valid 10 minutes, used once. */
export const telegramLinkCodes = pgTable(
  'telegram_link_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    codeHash: text('code_hash').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    adminId: uuid('admin_id').references(() => adminUsers.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('telegram_link_codes_hash_key').on(t.codeHash),
    check('telegram_link_codes_one_owner', sql`(${t.userId} IS NULL) <> (${t.adminId} IS NULL)`),
  ],
);

/**
 * Messages to send, written in the transaction of the change they report (so a rolled-back change
 * sends nothing) and drained by the server's sender after commit; each is sent once.
 */
export const telegramOutbox = pgTable(
  'telegram_outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    chatId: bigint('chat_id', { mode: 'number' }).notNull(),
    text: text('text').notNull(),
    createdAt: createdAt(),
    /** A sender working on it until then; another may take it after (a crashed sender's rows). */
    claimedUntil: ts('claimed_until'),
    attempts: integer('attempts').notNull().default(0),
    sentAt: ts('sent_at'),
  },
  (t) => [
    index('telegram_outbox_pending_idx')
      .on(t.createdAt)
      .where(sql`${t.sentAt} IS NULL`),
  ],
);
