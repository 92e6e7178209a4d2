/**
 * Low-balance alerts. Each user with a threshold is in one state: armed (remaining at or above the
 * threshold), low (below it) or out (nothing left). A check moves a user to the state their remaining
 * says with a conditional UPDATE (WHERE state = the state read), so of any number of concurrent
 * checks (one per gateway report) exactly one makes a given transition and sends its mail. A top-up
 * moves the state back up (re-arming) without a mail.
 */
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { gatewayLeases, proxyAccounts, users, type DbOrTx } from '@proxyhub/db';
import type { Locale } from '@proxyhub/core/i18n';
import { figures, mailTemplates, type DraftMailer } from '../../mail';
import { notifyTelegram, type Translator } from './telegram';
import { userRemaining } from '../money/wallet';
import { emitWebhookEvent } from './webhooks';

type AlertState = 'armed' | 'low' | 'out';

function stateFor(remaining: bigint, threshold: bigint): AlertState {
  if (remaining <= 0n) return 'out';
  return remaining < threshold ? 'low' : 'armed';
}

const RANK: Record<AlertState, number> = { armed: 0, low: 1, out: 2 };

export interface AlertSent {
  userId: string;
  state: 'low' | 'out';
}

/**
 * Checks the users `userIds` (all users with a threshold when omitted); run after the transaction
 * that changed their balance has committed. Returns the mails sent.
 */
export async function checkBalanceAlerts(
  db: DbOrTx,
  mail: { mailer: DraftMailer; config: { publicUrl: string } },
  userIds?: readonly string[],
  logger?: { error(obj: object, msg: string): void },
): Promise<AlertSent[]> {
  if (userIds && userIds.length === 0) return [];
  const where = userIds ? and(isNotNull(users.lowBalanceBytes), inArray(users.id, [...userIds])) : isNotNull(users.lowBalanceBytes);
  const rows = await db
    .select({
      id: users.id,
      email: users.email,
      locale: users.locale,
      state: users.balanceAlertState,
      threshold: users.lowBalanceBytes,
      remaining: userRemaining(),
    })
    .from(users)
    .where(where);
  const sent: AlertSent[] = [];
  for (const r of rows) {
    const next = stateFor(r.remaining, r.threshold ?? 0n);
    if (next === r.state) continue;
    const fall = next !== 'armed' && RANK[next] > RANK[r.state];
    // The transition, its webhook event and its Telegram message commit together (both sent after, once).
    const moved = await db.transaction(async (tx) => {
      const [row] = await tx
        .update(users)
        .set({ balanceAlertState: next })
        .where(and(eq(users.id, r.id), eq(users.balanceAlertState, r.state)))
        .returning({ id: users.id });
      if (row && fall) {
        const data = { state: next, remainingBytes: String(r.remaining), thresholdBytes: String(r.threshold ?? 0n) };
        await emitWebhookEvent(tx, { userId: r.id, type: 'balance.low', data });
        await notifyTelegram(tx, { userId: r.id }, (t, lng) => telegramAlertText(t, lng, next, r.remaining, r.threshold ?? 0n));
      }
      return row;
    });
    // Only a fall (armed -> low, anything -> out) mails; a rise re-arms silently.
    if (!moved || !fall) continue;
    const topUp = new URL('/topup', mail.config.publicUrl).toString();
    const message = next === 'out' ? mailTemplates.outOfData(r, topUp) : mailTemplates.lowBalance(r, topUp, r.remaining, r.threshold ?? 0n);
    // The transition is made: a failing mailer loses this mail but fails neither the caller nor the other users.
    try {
      await mail.mailer.send(message);
    } catch (err) {
      logger?.error({ err, userId: r.id }, 'balance alert mail failed');
      continue;
    }
    sent.push({ userId: r.id, state: next });
  }
  return sent;
}

/** The low-balance alert in the linked Telegram chat: the mail's threshold and amounts. */
function telegramAlertText(t: Translator, locale: Locale, state: AlertState, remaining: bigint, threshold: bigint): string {
  return state === 'out'
    ? t('notify.outOfData', { ns: 'bot' })
    : t('notify.lowBalance', { ns: 'bot', remaining: figures.gb(locale, remaining), threshold: figures.gb(locale, threshold) });
}

/** Sets (or with null clears) a user's threshold; the state follows at the next check. */
export async function setLowBalanceThreshold(db: DbOrTx, userId: string, bytes: bigint | null): Promise<void> {
  // A new threshold starts armed, so a balance already below it is reported once by the next check.
  await db.update(users).set({ lowBalanceBytes: bytes, balanceAlertState: 'armed' }).where(eq(users.id, userId));
}

export async function getLowBalanceThreshold(db: DbOrTx, userId: string): Promise<bigint | null> {
  const [row] = await db.select({ v: users.lowBalanceBytes }).from(users).where(eq(users.id, userId));
  return row?.v ?? null;
}

/** The users whose wallets the given leases spend (an account's own user, or a batch's buyer). */
export async function usersOfLeases(db: DbOrTx, leaseIds: readonly string[]): Promise<string[]> {
  if (leaseIds.length === 0) return [];
  const rows = await db
    .selectDistinct({ userId: proxyAccounts.userId })
    .from(gatewayLeases)
    .innerJoin(proxyAccounts, eq(proxyAccounts.id, gatewayLeases.proxyAccountId))
    .where(inArray(gatewayLeases.id, [...leaseIds]));
  return rows.flatMap((r) => (r.userId ? [r.userId] : []));
}
