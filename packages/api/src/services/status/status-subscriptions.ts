/**
 * Who hears of the quality board's incidents. An email address subscribes by double opt-in: the
 * subscribe answer is the same whoever asks (it tells nobody whether an address is subscribed),
 * and only the link mailed to the address confirms it. Links carry 256-bit random tokens, stored as
 * their SHA-256 only, expiring, spent by a conditional UPDATE (used once). Every incident mail
 * carries a fresh unsubscribe link. A Telegram chat subscribes by sending the command itself.
 */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { randomToken, sha256Hex } from '@proxyhub/auth';
import { DomainError, STATUS_LINK_INVALID } from '@proxyhub/core';
import { qualityIncidents, statusNotices, statusSubscriptions, statusSubscriptionTokens, type DbOrTx } from '@proxyhub/db';
import type { Locale } from '@proxyhub/core/i18n';
import { mailTemplates, type DraftMailer, type MailDraft } from '../../mail';

export const CONFIRM_TTL_MS = 24 * 3600_000;
/** An unsubscribe link holds as long as the board's history. */
export const UNSUBSCRIBE_TTL_MS = 90 * 86_400_000;
export const SUBSCRIBE_MESSAGE = 'Check your inbox: follow the link we sent to confirm the subscription.';

type Purpose = 'confirm' | 'unsubscribe';

async function issueStatusToken(tx: DbOrTx, subscriptionId: string, purpose: Purpose, ttlMs: number): Promise<string> {
  const token = randomToken(32);
  await tx.insert(statusSubscriptionTokens).values({ tokenHash: sha256Hex(token), subscriptionId, purpose, expiresAt: new Date(Date.now() + ttlMs) });
  return token;
}

/** The subscription a live token of `purpose` names, the token spent; a 400 otherwise. */
async function spendStatusToken(tx: DbOrTx, token: string, purpose: Purpose): Promise<string> {
  const [row] = await tx
    .update(statusSubscriptionTokens)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(statusSubscriptionTokens.tokenHash, sha256Hex(token)),
        eq(statusSubscriptionTokens.purpose, purpose),
        isNull(statusSubscriptionTokens.usedAt),
        sql`${statusSubscriptionTokens.expiresAt} > now()`,
      ),
    )
    .returning({ subscriptionId: statusSubscriptionTokens.subscriptionId });
  if (!row) throw new DomainError('BAD_REQUEST', STATUS_LINK_INVALID);
  return row.subscriptionId;
}

const statusLink = (publicUrl: string, purpose: Purpose, token: string) => new URL(`/status?${purpose}=${token}`, publicUrl).toString();

/**
 * POST /api/status/subscribe: the address gets a confirmation link (an address already confirmed
 * gets nothing: it hears of incidents already). The same answer either way. The mail to send, or null.
 */
export async function subscribeEmail(tx: DbOrTx, email: string, publicUrl: string, locale: Locale): Promise<MailDraft | null> {
  // An unconfirmed address takes the latest request's language (the confirmation and later incident
  // mails are in it); a confirmed one keeps its own, so a stranger's request cannot change it.
  await tx
    .insert(statusSubscriptions)
    .values({ email, locale })
    .onConflictDoUpdate({ target: statusSubscriptions.email, set: { locale }, setWhere: isNull(statusSubscriptions.confirmedAt) });
  const [sub] = await tx.select().from(statusSubscriptions).where(eq(statusSubscriptions.email, email));
  if (!sub || sub.confirmedAt) return null;
  const link = statusLink(publicUrl, 'confirm', await issueStatusToken(tx, sub.id, 'confirm', CONFIRM_TTL_MS));
  return mailTemplates.statusConfirm({ email, locale: sub.locale }, link);
}

/** The confirmation link's POST: the address now gets incident mails. */
export async function confirmSubscription(tx: DbOrTx, token: string): Promise<{ email: string }> {
  const id = await spendStatusToken(tx, token, 'confirm');
  const [sub] = await tx
    .update(statusSubscriptions)
    .set({ confirmedAt: sql`coalesce(${statusSubscriptions.confirmedAt}, now())` })
    .where(eq(statusSubscriptions.id, id))
    .returning({ email: statusSubscriptions.email });
  return { email: sub!.email! };
}

/** An incident mail's unsubscribe link's POST: the subscription and its links are gone. */
export async function unsubscribe(tx: DbOrTx, token: string): Promise<{ email: string }> {
  const id = await spendStatusToken(tx, token, 'unsubscribe');
  const [gone] = await tx.delete(statusSubscriptions).where(eq(statusSubscriptions.id, id)).returning({ email: statusSubscriptions.email });
  return { email: gone?.email ?? '' };
}

/** The bot's `/status subscribe` and `/status unsubscribe`: whether the chat is subscribed now. */
export async function setChatSubscribed(tx: DbOrTx, chatId: number, on: boolean, locale: Locale): Promise<boolean> {
  if (on)
    await tx
      .insert(statusSubscriptions)
      .values({ telegramChatId: chatId, confirmedAt: new Date(), locale })
      .onConflictDoUpdate({ target: statusSubscriptions.telegramChatId, set: { locale } });
  else await tx.delete(statusSubscriptions).where(eq(statusSubscriptions.telegramChatId, chatId));
  return on;
}

/**
 * Sends the incident mails owed: each notice is claimed (claimed_at set by a conditional UPDATE)
 * before its mail goes, so two senders never send one twice; a mailer failure loses that mail
 * rather than risk a second. How many were sent.
 */
export async function sendStatusNotices(
  db: DbOrTx,
  mailer: DraftMailer,
  publicUrl: string,
  logger?: { error(obj: object, msg: string): void },
): Promise<number> {
  const claimed = await db
    .update(statusNotices)
    .set({ claimedAt: new Date() })
    .where(
      and(
        isNull(statusNotices.claimedAt),
        inArray(statusNotices.id, db.select({ id: statusNotices.id }).from(statusNotices).where(isNull(statusNotices.claimedAt)).limit(200)),
      ),
    )
    .returning({ id: statusNotices.id, subscriptionId: statusNotices.subscriptionId, incidentId: statusNotices.incidentId, kind: statusNotices.kind });
  let sent = 0;
  for (const n of claimed) {
    const [row] = await db
      .select({ email: statusSubscriptions.email, locale: statusSubscriptions.locale, country: qualityIncidents.country })
      .from(statusSubscriptions)
      .innerJoin(qualityIncidents, eq(qualityIncidents.id, n.incidentId))
      .where(eq(statusSubscriptions.id, n.subscriptionId));
    if (!row?.email) continue;
    const unsubscribeUrl = statusLink(publicUrl, 'unsubscribe', await issueStatusToken(db, n.subscriptionId, 'unsubscribe', UNSUBSCRIBE_TTL_MS));
    try {
      await mailer.send(
        mailTemplates.statusIncident({ email: row.email, locale: row.locale }, new URL('/status', publicUrl).toString(), {
          country: row.country,
          kind: n.kind,
          unsubscribeUrl,
        }),
      );
      sent += 1;
    } catch (err) {
      logger?.error({ err, subscriptionId: n.subscriptionId }, 'status mail failed');
    }
  }
  return sent;
}
