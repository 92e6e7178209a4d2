/**
 * The Telegram bot's accounts and messages: one-time link codes (hashed, 10 minutes, used once),
 * the chat each account is linked to, and the outbox of notifications. Notifications are written
 * in the transaction of the change they report, so they are sent only once it has committed, and
 * the server's sender drains them without ever holding up that change.
 */
import { and, eq, inArray, isNull, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { randomToken, sha256Hex } from '@proxyhub/auth';
import { DomainError, type AdminRole } from '@proxyhub/core';
import { DEFAULT_LOCALE, isLocale, type Locale } from '@proxyhub/core/i18n';
import { pickLocale, translatorFor } from '@proxyhub/core/i18n/server';
import { adminUsers, telegramChats, telegramLinkCodes, telegramOutbox, users, type DbOrTx } from '@proxyhub/db';

export const TELEGRAM_LINK_TTL_MS = 10 * 60 * 1000;
export const TELEGRAM_NOT_CONFIGURED = 'The Telegram bot is not configured on this server';

/** Whose chat: a user's or an admin's. */
export type ChatOwner = { userId: string } | { adminId: string };

const ownerWhere = (t: { userId: AnyPgColumn; adminId: AnyPgColumn }, o: ChatOwner) => ('userId' in o ? eq(t.userId, o.userId) : eq(t.adminId, o.adminId));
const ownerValues = (o: ChatOwner) => ('userId' in o ? { userId: o.userId, adminId: null } : { userId: null, adminId: o.adminId });

/** `https://t.me/<bot>?start=<code>`: opening it in Telegram sends `/start <code>` to the bot. */
export function telegramLinkUrl(botUsername: string, code: string): string {
  return `https://t.me/${botUsername}?start=${code}`;
}

/** A new link code for the owner (earlier unused ones die); only its SHA-256 is stored. */
export async function issueTelegramLinkCode(tx: DbOrTx, owner: ChatOwner, botUsername: string | null): Promise<{ code: string; url: string }> {
  // No bot, nothing to link to: as if the path did not exist (the webhook route does not either).
  if (!botUsername) throw new DomainError('NOT_FOUND', TELEGRAM_NOT_CONFIGURED);
  // 24 random bytes in base64url: 32 characters from Telegram's start-parameter alphabet.
  const code = randomToken(24);
  await tx
    .update(telegramLinkCodes)
    .set({ usedAt: new Date() })
    .where(and(ownerWhere(telegramLinkCodes, owner), isNull(telegramLinkCodes.usedAt)));
  await tx.insert(telegramLinkCodes).values({ codeHash: sha256Hex(code), ...ownerValues(owner), expiresAt: new Date(Date.now() + TELEGRAM_LINK_TTL_MS) });
  return { code, url: telegramLinkUrl(botUsername, code) };
}

export interface LinkedAccount {
  owner: ChatOwner;
  /** The user's email or the admin's username, for the reply. */
  name: string;
}

/**
 * `/start <code>`: the code is claimed once (a conditional UPDATE decides under concurrency) and the
 * chat linked to its account, replacing the chat's earlier account and the account's earlier chat.
 * Null for an unknown, used or expired code.
 */
export async function linkTelegramChat(tx: DbOrTx, input: { code: string; chatId: number }): Promise<LinkedAccount | null> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(input.code)) return null;
  const [row] = await tx
    .update(telegramLinkCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(telegramLinkCodes.codeHash, sha256Hex(input.code)), isNull(telegramLinkCodes.usedAt), sql`${telegramLinkCodes.expiresAt} > now()`))
    .returning({ userId: telegramLinkCodes.userId, adminId: telegramLinkCodes.adminId });
  if (!row) return null;
  const owner: ChatOwner = row.userId ? { userId: row.userId } : { adminId: row.adminId! };
  let name: string;
  if ('userId' in owner) {
    const [u] = await tx.select({ email: users.email, deletedAt: users.deletedAt }).from(users).where(eq(users.id, owner.userId));
    if (!u || u.deletedAt) return null;
    name = u.email;
  } else {
    const [a] = await tx.select({ username: adminUsers.username, disabledAt: adminUsers.disabledAt }).from(adminUsers).where(eq(adminUsers.id, owner.adminId));
    if (!a || a.disabledAt) return null;
    name = a.username;
  }
  await tx.delete(telegramChats).where(or(eq(telegramChats.chatId, input.chatId), ownerWhere(telegramChats, owner)));
  await tx.insert(telegramChats).values({ chatId: input.chatId, ...ownerValues(owner) });
  return { owner, name };
}

/** The owner's linked chat, or null. */
export async function telegramLinkOf(db: DbOrTx, owner: ChatOwner): Promise<{ chatId: number; linkedAt: string } | null> {
  const [row] = await db.select().from(telegramChats).where(ownerWhere(telegramChats, owner)).limit(1);
  return row ? { chatId: row.chatId, linkedAt: row.linkedAt.toISOString() } : null;
}

/** Unlinks the owner's chat; whether there was one. */
export async function unlinkTelegram(tx: DbOrTx, owner: ChatOwner): Promise<boolean> {
  const gone = await tx.delete(telegramChats).where(ownerWhere(telegramChats, owner)).returning({ id: telegramChats.id });
  return gone.length > 0;
}

/** Who a chat belongs to, or null when it is not linked. */
export async function chatOwner(db: DbOrTx, chatId: number): Promise<ChatOwner | null> {
  const [row] = await db.select({ userId: telegramChats.userId, adminId: telegramChats.adminId }).from(telegramChats).where(eq(telegramChats.chatId, chatId));
  if (!row) return null;
  return row.userId ? { userId: row.userId } : { adminId: row.adminId! };
}

/** A message's words: fixed, or written in the reader's language (a user's own; English for an admin). */
export type ChatText = string | ((t: Translator, locale: Locale) => string);
export type Translator = ReturnType<typeof translatorFor>;

/** Queues a message for the owner's chat, in the caller's transaction; nothing when none is linked. */
export async function notifyTelegram(tx: DbOrTx, owner: ChatOwner, text: ChatText): Promise<void> {
  const [chat] = await tx
    .select({ chatId: telegramChats.chatId, locale: users.locale })
    .from(telegramChats)
    .leftJoin(users, eq(users.id, telegramChats.userId))
    .where(ownerWhere(telegramChats, owner));
  if (!chat) return;
  const locale = isLocale(chat.locale) ? chat.locale : DEFAULT_LOCALE;
  await tx.insert(telegramOutbox).values({ chatId: chat.chatId, text: typeof text === 'string' ? text : text(translatorFor(locale), locale) });
}

/** The locale of the user a chat is linked to, else what Telegram says of the sender's app language. */
export async function chatLocale(db: DbOrTx, chatId: number, languageCode: string | undefined): Promise<Locale> {
  const [row] = await db
    .select({ locale: users.locale })
    .from(telegramChats)
    .innerJoin(users, eq(users.id, telegramChats.userId))
    .where(eq(telegramChats.chatId, chatId));
  if (isLocale(row?.locale)) return row.locale;
  return pickLocale(languageCode ? [languageCode] : []);
}

/** Queues the text for every linked chat; how many. */
export async function queueBroadcast(tx: DbOrTx, text: string): Promise<number> {
  const chats = await tx.select({ chatId: telegramChats.chatId }).from(telegramChats);
  if (chats.length) await tx.insert(telegramOutbox).values(chats.map((c) => ({ chatId: c.chatId, text })));
  return chats.length;
}

/** Queues the text for the linked chats of every active admin with one of `roles`, in the caller's transaction; how many. */
export async function notifyAdminChats(tx: DbOrTx, roles: readonly AdminRole[], text: string): Promise<number> {
  const chats = await tx
    .select({ chatId: telegramChats.chatId })
    .from(telegramChats)
    .innerJoin(adminUsers, eq(adminUsers.id, telegramChats.adminId))
    .where(and(inArray(adminUsers.role, [...roles]), isNull(adminUsers.disabledAt)));
  if (chats.length) await tx.insert(telegramOutbox).values(chats.map((c) => ({ chatId: c.chatId, text })));
  return chats.length;
}

/** How long a sender holds the messages it took before another may take them. */
const CLAIM_MS = 60_000;
/** A message Telegram keeps refusing is given up after this many attempts. */
export const OUTBOX_MAX_ATTEMPTS = 5;

export interface OutboxMessage {
  id: string;
  chatId: number;
  text: string;
}

/** Takes up to `limit` unsent messages, oldest first; concurrent senders never take the same one. */
export async function claimOutbox(db: DbOrTx, limit = 50): Promise<OutboxMessage[]> {
  const due = or(isNull(telegramOutbox.claimedUntil), lt(telegramOutbox.claimedUntil, new Date()));
  const ids = db
    .select({ id: telegramOutbox.id })
    .from(telegramOutbox)
    .where(and(isNull(telegramOutbox.sentAt), lt(telegramOutbox.attempts, OUTBOX_MAX_ATTEMPTS), due))
    .orderBy(telegramOutbox.createdAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(telegramOutbox)
    .set({ claimedUntil: new Date(Date.now() + CLAIM_MS), attempts: sql`${telegramOutbox.attempts} + 1` })
    .where(and(sql`${telegramOutbox.id} IN ${ids}`, isNull(telegramOutbox.sentAt)))
    .returning({ id: telegramOutbox.id, chatId: telegramOutbox.chatId, text: telegramOutbox.text });
}

export async function markOutboxSent(db: DbOrTx, id: string): Promise<void> {
  await db.update(telegramOutbox).set({ sentAt: new Date(), claimedUntil: null }).where(eq(telegramOutbox.id, id));
}

/** Failed: released for the next drain (until it has used its attempts). */
export async function releaseOutbox(db: DbOrTx, id: string): Promise<void> {
  await db
    .update(telegramOutbox)
    .set({ claimedUntil: null })
    .where(and(eq(telegramOutbox.id, id), isNotNull(telegramOutbox.claimedUntil)));
}
