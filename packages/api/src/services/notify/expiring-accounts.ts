/**
 * "Your proxy account expires soon": three days before a proxy account's expires_at, one notice
 * (mail, Telegram, the `proxy_account.expiring` webhook event). The notice records the expires_at it
 * was for with a conditional UPDATE, so it goes once whichever servers look; a new expires_at re-arms
 * it. One server of the fleet looks each period (runOncePerPeriod).
 */
import { and, eq, gt, isNotNull, lte, ne, or, isNull } from 'drizzle-orm';
import { proxyAccounts, users, type DbOrTx } from '@proxyhub/db';
import { figures, mailTemplates, type DraftMailer } from '../../mail';
import { runOncePerPeriod } from '../lib/job-claims';
import { notifyTelegram } from './telegram';
import { emitWebhookEvent } from './webhooks';

/** How long before its expiry an account's owner hears of it. */
export const EXPIRING_NOTICE_MS = 3 * 86_400_000;
/** One server looks this often. */
export const EXPIRING_PERIOD_MS = 10 * 60_000;

const notNotified = or(isNull(proxyAccounts.expiryNotifiedFor), ne(proxyAccounts.expiryNotifiedFor, proxyAccounts.expiresAt));

/** Sends the notices due at `now`; the proxy account ids notified. */
export async function notifyExpiringAccounts(
  db: DbOrTx,
  mail: { mailer: DraftMailer; config: { publicUrl: string } },
  now = new Date(),
  logger?: { error(obj: object, msg: string): void },
): Promise<string[]> {
  const a = proxyAccounts;
  const due = await db
    .select({ id: a.id, name: a.name, proxyUserId: a.proxyUserId, expiresAt: a.expiresAt, userId: users.id, email: users.email, locale: users.locale })
    .from(a)
    .innerJoin(users, eq(users.id, a.userId))
    .where(and(isNotNull(a.expiresAt), gt(a.expiresAt, now), lte(a.expiresAt, new Date(now.getTime() + EXPIRING_NOTICE_MS)), notNotified));
  const sent: string[] = [];
  for (const r of due) {
    const expiresAt = r.expiresAt!;
    const claimed = await db.transaction(async (tx) => {
      // Still this expires_at and not yet notified for it: of concurrent looks, one moves it.
      const [row] = await tx
        .update(a)
        .set({ expiryNotifiedFor: expiresAt })
        .where(and(eq(a.id, r.id), eq(a.expiresAt, expiresAt), notNotified))
        .returning({ id: a.id });
      if (!row) return false;
      const data = { proxyAccountId: r.id, proxyUserId: r.proxyUserId, name: r.name, expiresAt: expiresAt.toISOString() };
      await emitWebhookEvent(tx, { userId: r.userId, type: 'proxy_account.expiring', data });
      await notifyTelegram(tx, { userId: r.userId }, (t, lng) =>
        t('notify.expiring', { ns: 'bot', name: r.name || r.proxyUserId, expiresAt: figures.minute(lng, expiresAt) }),
      );
      return true;
    });
    if (!claimed) continue;
    const link = new URL('/proxy-accounts', mail.config.publicUrl).toString();
    try {
      await mail.mailer.send(mailTemplates.proxyAccountExpiring(r, link, { name: r.name || r.proxyUserId, expiresAt }));
    } catch (err) {
      logger?.error({ err, proxyAccountId: r.id }, 'expiring account mail failed');
      continue;
    }
    sent.push(r.id);
  }
  return sent;
}

/** The fleet's timer: the server that claims the period sends what is due; null on the others. */
export function expiringAccountsTick(
  db: DbOrTx,
  mail: { mailer: DraftMailer; config: { publicUrl: string } },
  by: string,
  now = Date.now(),
  logger?: { error(obj: object, msg: string): void },
): Promise<string[] | null> {
  return runOncePerPeriod(db, { job: 'proxy-account-expiring', periodMs: EXPIRING_PERIOD_MS, by, now }, () =>
    notifyExpiringAccounts(db, mail, new Date(now), logger),
  );
}
