/**
 * One user as the admin sees and changes them: everything about the account in one answer,
 * suspension (sign-in, sessions, API key and proxy credentials stop; nothing is deleted) and
 * balance corrections that go through the ledger like every other credit.
 */
import { randomUUID } from 'node:crypto';
import { and, desc, eq, gt, isNotNull, isNull } from 'drizzle-orm';
import { deleteUserSessions } from '@proxyhub/auth';
import { DomainError, formatGb, hundredthsGbToBytes } from '@proxyhub/core';
import { auditLog, proxyAccounts, sessions, users, type DbOrTx } from '@proxyhub/db';
import { listBilling } from '../money/billing';
import { listUserBuckets } from '../money/plan-buckets';
import { listSubscriptions } from '../money/subscriptions';
import { notifyTelegram } from '../notify/telegram';
import { statusOf } from './user-list';
import { userUsageHistory } from '../usage/usage-history';
import { credit, userLeasedBytes, walletCredits } from '../money/wallet';
import { emitWebhookEvent } from '../notify/webhooks';

export const USER_NOT_FOUND = 'User not found';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function findUser(db: DbOrTx, id: string, opts: { lock?: boolean } = {}) {
  if (!UUID_RE.test(id)) throw new DomainError('NOT_FOUND', USER_NOT_FOUND);
  const q = db.select().from(users).where(eq(users.id, id));
  const [u] = opts.lock ? await q.for('update') : await q;
  if (!u) throw new DomainError('NOT_FOUND', USER_NOT_FOUND);
  return u;
}

/** Everything about one user: profile, balances, proxy accounts, plans, billing, 30 days of usage, sessions. */
export async function adminUserDetail(db: DbOrTx, id: string) {
  const u = await findUser(db, id);
  const [leased, accounts, billing, usage, active, suspension, subs, buckets] = await Promise.all([
    userLeasedBytes(db, u.id),
    db
      .select({
        proxyUserId: proxyAccounts.proxyUserId,
        name: proxyAccounts.name,
        kind: proxyAccounts.kind,
        capBytes: proxyAccounts.capBytes,
        usedBytes: proxyAccounts.usedBytes,
        disabledAt: proxyAccounts.disabledAt,
        createdAt: proxyAccounts.createdAt,
      })
      .from(proxyAccounts)
      .where(eq(proxyAccounts.userId, u.id))
      .orderBy(proxyAccounts.createdAt),
    listBilling(db, u.id, { limit: 100 }, { forStaff: true }),
    userUsageHistory(db, u.id, { granularity: 'day' }),
    db
      .select({ expiresAt: sessions.expiresAt })
      .from(sessions)
      .where(and(eq(sessions.userId, u.id), gt(sessions.expiresAt, new Date())))
      .orderBy(desc(sessions.expiresAt)),
    u.disabledAt
      ? db
          .select({ reason: auditLog.reason, actor: auditLog.actor, at: auditLog.at })
          .from(auditLog)
          .where(and(eq(auditLog.action, 'admin.suspendUser'), eq(auditLog.target, `user:${u.id}`)))
          .orderBy(desc(auditLog.at))
          .limit(1)
      : [],
    listSubscriptions(db, u.id),
    listUserBuckets(db, u.id),
  ]);
  return {
    profile: {
      id: u.id,
      email: u.email,
      name: u.name,
      authType: u.passwordHash === null && u.googleSub ? ('google' as const) : ('email' as const),
      status: statusOf(u),
      emailVerified: u.emailVerifiedAt !== null,
      twoFactor: u.totpEnabledAt !== null,
      /** Sessions started so far. */
      signIns: u.signInCount,
      targetPolicyExempt: u.targetPolicyExempt,
      /** The user's own rate in cents per GB; null: the price list's. */
      pricePerGbCents: u.pricePerGbCents,
      createdAt: u.createdAt.toISOString(),
      suspendedAt: u.deletedAt ? null : (u.disabledAt?.toISOString() ?? null),
      deletedAt: u.deletedAt?.toISOString() ?? null,
      suspension: suspension[0] ? { reason: suspension[0].reason, by: suspension[0].actor, at: suspension[0].at.toISOString() } : null,
    },
    balances: {
      remainingBytes: (u.creditsBytes + leased).toString(),
      creditsBytes: u.creditsBytes.toString(),
      leasedBytes: leased.toString(),
      usedBytes: u.totalUsageBytes.toString(),
    },
    proxyAccounts: accounts.map((a) => ({
      proxyUserId: a.proxyUserId,
      name: a.name,
      kind: a.kind,
      capBytes: a.capBytes?.toString() ?? null,
      usedBytes: a.usedBytes.toString(),
      disabled: a.disabledAt !== null,
      createdAt: a.createdAt.toISOString(),
    })),
    subscriptions: subs.map((s) => ({
      id: s.id,
      planId: s.plan.id,
      planName: s.plan.name,
      status: s.status,
      periodStart: s.periodStart.toISOString(),
      periodEnd: s.periodEnd.toISOString(),
      allowanceBytes: s.allowanceBytes.toString(),
      usedBytes: s.usedBytes.toString(),
      carriedBytes: s.carriedBytes.toString(),
      renewsAt: s.renewsAt?.toISOString() ?? null,
    })),
    planBuckets: buckets.map((b) => ({
      id: b.id,
      subscriptionId: b.subscriptionId,
      planName: b.planName,
      period: b.period,
      grantedBytes: b.grantedBytes.toString(),
      carriedBytes: b.carriedBytes.toString(),
      usedBytes: b.usedBytes.toString(),
      remainingBytes: b.remainingBytes.toString(),
      startsAt: b.startsAt.toISOString(),
      endsAt: b.endsAt.toISOString(),
      closedAt: b.closedAt?.toISOString() ?? null,
    })),
    billing: billing.entries,
    usageByDay: usage.points,
    usageByCountry: usage.byCountry,
    sessions: { active: active.length, expiresAt: active.map((s) => s.expiresAt.toISOString()) },
  };
}

export const ALREADY_SUSPENDED = 'This user is already suspended';
export const USER_DELETED = 'This user deleted their account: there is nothing to suspend or restore';
export const NOT_SUSPENDED = 'This user is not suspended';

/**
 * Suspends a user: sign-in, sessions and the API key are refused from now on (the sessions are
 * deleted), and the gateway refuses their proxy credentials at its next check (within seconds).
 */
export async function suspendUser(tx: DbOrTx, id: string): Promise<{ suspendedAt: Date; email: string; locale: string }> {
  const u = await findUser(tx, id, { lock: true });
  if (u.deletedAt) throw new DomainError('CONFLICT', USER_DELETED);
  const [row] = await tx
    .update(users)
    .set({ disabledAt: new Date() })
    .where(and(eq(users.id, u.id), isNull(users.disabledAt)))
    .returning({ at: users.disabledAt });
  if (!row?.at) throw new DomainError('CONFLICT', ALREADY_SUSPENDED);
  await deleteUserSessions(tx, u.id);
  await emitWebhookEvent(tx, { userId: u.id, type: 'account.suspended', data: { userId: u.id, suspendedAt: row.at.toISOString() } });
  await notifyTelegram(tx, { userId: u.id }, (t) => t('notify.suspended', { ns: 'bot' }));
  return { suspendedAt: row.at, email: u.email, locale: u.locale };
}

/** Lifts a suspension: the same password, API key and proxy credentials work again. */
export async function unsuspendUser(tx: DbOrTx, id: string): Promise<void> {
  const u = await findUser(tx, id, { lock: true });
  if (u.deletedAt) throw new DomainError('CONFLICT', USER_DELETED);
  const [row] = await tx
    .update(users)
    .set({ disabledAt: null })
    .where(and(eq(users.id, u.id), isNotNull(users.disabledAt)))
    .returning({ id: users.id });
  if (!row) throw new DomainError('CONFLICT', NOT_SUSPENDED);
  await notifyTelegram(tx, { userId: u.id }, (t) => t('notify.resumed', { ns: 'bot' }));
}

/**
 * Corrects a balance by deltaGB with a reason: one ledger entry (kind admin_adjustment, its note
 * naming the admin and the reason), never below zero. The user sees it in their billing history.
 */
export async function adjustBalance(tx: DbOrTx, input: { id: string; deltaGB: number; reason: string; actor: string }) {
  const u = await findUser(tx, input.id, { lock: true });
  const size = hundredthsGbToBytes(Math.abs(input.deltaGB));
  const delta = input.deltaGB < 0 ? -size : size;
  const credits = await walletCredits(tx, { userId: u.id }, { lock: true });
  if (credits + delta < 0n) {
    throw new DomainError('BAD_REQUEST', `The balance cannot go below zero: this user has ${formatGb(credits)} GB that is not held by a gateway`);
  }
  const after = await credit(tx, {
    wallet: { userId: u.id },
    bytes: delta,
    kind: 'admin_adjustment',
    sourceKey: `adjustment:${randomUUID()}`,
    note: `${input.reason} (${input.actor})`,
  });
  return { deltaBytes: delta.toString(), creditsBytes: (after ?? credits).toString() };
}
