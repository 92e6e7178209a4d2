/**
 * Referrals. Every user has a referral code (made by the database); a user who registers with one
 * is referred by its owner, once and for good. Each credit of a referred user's crypto order earns
 * the referrer REFERRAL_PERCENT % of it, pending for REFERRAL_PENDING_DAYS, then credited by
 * `creditDueReferrals` (a periodic job); a refund before the pending time ends cancels it. Codes
 * redeemed earn nothing: only the payments service calls `onOrderCredited`.
 * Threats: crediting twice (one pending row per order credit, keyed on its ledger source; the job
 * claims a row with a conditional UPDATE and the ledger's unique `referral:<id>` backs it up, so
 * concurrent runs and restarts credit once), self-referral (refused), enumeration of referred users
 * (the referrer sees masked emails only).
 */
import { and, count, desc, eq, gt, isNull, lte, sql } from 'drizzle-orm';
import { DomainError } from '@proxyhub/core';
import { payments, referralCredits, users, type DbOrTx } from '@proxyhub/db';
import type { ApiConfig } from '../config';
import { recordAudit, type Actor } from './audit-log';
import { credit } from './wallet';

export interface ReferralSettings {
  /** Whole percent of each order credit the referrer earns. */
  percent: number;
  /** Days an earning stays pending; 0 credits it with the order. */
  pendingDays: number;
}

export const DEFAULT_REFERRAL_SETTINGS: ReferralSettings = { percent: 10, pendingDays: 14 };

export function referralSettings(config: Pick<ApiConfig, 'referrals'>): ReferralSettings {
  return config.referrals ?? DEFAULT_REFERRAL_SETTINGS;
}

export const UNKNOWN_REFERRAL_CODE = 'Unknown referral code';
export const SELF_REFERRAL = 'You cannot refer yourself';

const DAY_MS = 24 * 60 * 60 * 1000;
const internalActor: Actor = { actor: 'internal', adminId: null, sourceAddress: 'server' };

/** The user whose referral code this is; a 400 naming the field when there is none. */
export async function findReferrer(db: DbOrTx, referralCode: string): Promise<string> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.referralCode, referralCode.trim().toUpperCase()), isNull(users.deletedAt)))
    .limit(1);
  if (!row) throw new DomainError('BAD_REQUEST', UNKNOWN_REFERRAL_CODE, { field: 'referralCode' });
  return row.id;
}

/** Records who referred `userId`; only once, and never the user themself. */
export async function attachReferrer(tx: DbOrTx, input: { userId: string; referrerId: string }): Promise<boolean> {
  if (input.referrerId === input.userId) throw new DomainError('BAD_REQUEST', SELF_REFERRAL, { field: 'referralCode' });
  const set = await tx
    .update(users)
    .set({ referredBy: input.referrerId })
    .where(and(eq(users.id, input.userId), isNull(users.referredBy)))
    .returning({ id: users.id });
  return set.length > 0;
}

/**
 * The hook the payments service calls where an order's credit is applied, in its transaction:
 * records the referrer's earning for this credit (`source` is the credit's ledger source), and
 * credits it at once when nothing is to be pending.
 */
export async function onOrderCredited(
  tx: DbOrTx,
  settings: ReferralSettings,
  input: { paymentId: string; userId: string; bytes: bigint; source: string; now?: Date },
): Promise<void> {
  const [buyer] = await tx.select({ referrerId: users.referredBy }).from(users).where(eq(users.id, input.userId)).limit(1);
  if (!buyer?.referrerId) return;
  const amount = (input.bytes * BigInt(settings.percent)) / 100n;
  if (amount <= 0n) return;
  const now = input.now ?? new Date();
  const [row] = await tx
    .insert(referralCredits)
    .values({
      referrerId: buyer.referrerId,
      referredUserId: input.userId,
      paymentId: input.paymentId,
      source: input.source,
      amountBytes: amount,
      dueAt: new Date(now.getTime() + settings.pendingDays * DAY_MS),
    })
    .onConflictDoNothing({ target: referralCredits.source })
    .returning();
  if (!row) return;
  await recordAudit(tx, internalActor, {
    action: 'referral.pending',
    target: `user:${row.referrerId}`,
    changes: { referralCreditId: row.id, paymentId: row.paymentId, bytes: amount, dueAt: row.dueAt },
  });
  if (settings.pendingDays === 0) await creditOne(tx, row.id, now);
}

/** The hook for a refunded order: what it earned and is still pending (not yet due) is cancelled. */
export async function onOrderRefunded(tx: DbOrTx, input: { paymentId: string; now?: Date }): Promise<void> {
  const now = input.now ?? new Date();
  const cancelled = await tx
    .update(referralCredits)
    .set({ cancelledAt: now })
    .where(
      and(
        eq(referralCredits.paymentId, input.paymentId),
        isNull(referralCredits.creditedAt),
        isNull(referralCredits.cancelledAt),
        gt(referralCredits.dueAt, now),
      ),
    )
    .returning();
  for (const r of cancelled) {
    await recordAudit(tx, internalActor, {
      action: 'referral.cancel',
      target: `user:${r.referrerId}`,
      changes: { referralCreditId: r.id, paymentId: r.paymentId, bytes: r.amountBytes },
      reason: 'order refunded',
    });
  }
}

/** Claims one due earning and credits it; false when another run got there first (or it was cancelled). */
async function creditOne(tx: DbOrTx, id: string, now: Date): Promise<{ referrerId: string; bytes: bigint } | null> {
  const [claimed] = await tx
    .update(referralCredits)
    .set({ creditedAt: now })
    .where(and(eq(referralCredits.id, id), isNull(referralCredits.creditedAt), isNull(referralCredits.cancelledAt), lte(referralCredits.dueAt, now)))
    .returning();
  if (!claimed) return null;
  const done = await credit(tx, {
    wallet: { userId: claimed.referrerId },
    bytes: claimed.amountBytes,
    kind: 'referral',
    sourceKey: `referral:${claimed.id}`,
    note: `referral: order ${claimed.paymentId}`,
  });
  if (done === null) return null;
  await recordAudit(tx, internalActor, {
    action: 'referral.credit',
    target: `user:${claimed.referrerId}`,
    changes: { referralCreditId: claimed.id, paymentId: claimed.paymentId, bytes: claimed.amountBytes },
  });
  return { referrerId: claimed.referrerId, bytes: claimed.amountBytes };
}

/**
 * The periodic job: credits every earning due at `now`, each in its own transaction. Safe to run
 * concurrently (several server processes) and again after a restart: each earning is credited once.
 */
export async function creditDueReferrals(db: DbOrTx, now: Date = new Date()): Promise<{ credited: number; bytes: bigint; referrerIds: string[] }> {
  const due = await db
    .select({ id: referralCredits.id })
    .from(referralCredits)
    .where(and(isNull(referralCredits.creditedAt), isNull(referralCredits.cancelledAt), lte(referralCredits.dueAt, now)))
    .orderBy(referralCredits.dueAt)
    .limit(1000);
  let credited = 0;
  let bytes = 0n;
  const referrerIds = new Set<string>();
  for (const { id } of due) {
    const r = await db.transaction((tx) => creditOne(tx, id, now));
    if (!r) continue;
    credited++;
    bytes += r.bytes;
    referrerIds.add(r.referrerId);
  }
  return { credited, bytes, referrerIds: [...referrerIds] };
}

export interface ReferralEntry {
  id: string;
  createdAt: Date;
  /** The referred user, masked: first letter and domain. */
  referredUser: string;
  orderId: string;
  orderGb: number;
  bytes: bigint;
  status: 'pending' | 'credited' | 'cancelled';
  dueAt: Date;
  creditedAt: Date | null;
}

export interface ReferralSummary {
  referralCode: string;
  link: string;
  referred: number;
  pendingBytes: bigint;
  earnedBytes: bigint;
  entries: ReferralEntry[];
}

function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at > 0 ? `${email[0]}***${email.slice(at)}` : '***';
}

export function referralLink(publicUrl: string, referralCode: string): string {
  const url = new URL('/login', publicUrl);
  url.searchParams.set('ref', referralCode);
  return url.toString();
}

/** What the Referrals card shows: the link, how many signed up with it, what is pending and earned. */
export async function referralSummary(db: DbOrTx, input: { userId: string; publicUrl: string }): Promise<ReferralSummary> {
  const [me] = await db.select({ code: users.referralCode }).from(users).where(eq(users.id, input.userId)).limit(1);
  if (!me) throw new DomainError('NOT_FOUND', 'User not found');
  const bytesWhere = (cond: ReturnType<typeof and>) =>
    db
      .select({ v: sql`coalesce(sum(${referralCredits.amountBytes}), 0)::text`.mapWith(BigInt) })
      .from(referralCredits)
      .where(and(eq(referralCredits.referrerId, input.userId), cond));
  const [[referred], [pending], [earned], rows] = await Promise.all([
    db.select({ n: count() }).from(users).where(eq(users.referredBy, input.userId)),
    bytesWhere(and(isNull(referralCredits.creditedAt), isNull(referralCredits.cancelledAt))),
    bytesWhere(sql`${referralCredits.creditedAt} is not null`),
    db
      .select({ r: referralCredits, email: users.email, gb: payments.gbAmount })
      .from(referralCredits)
      .innerJoin(users, eq(users.id, referralCredits.referredUserId))
      .innerJoin(payments, eq(payments.id, referralCredits.paymentId))
      .where(eq(referralCredits.referrerId, input.userId))
      .orderBy(desc(referralCredits.createdAt), desc(referralCredits.id))
      .limit(200),
  ]);
  return {
    referralCode: me.code,
    link: referralLink(input.publicUrl, me.code),
    referred: Number(referred?.n ?? 0),
    pendingBytes: pending?.v ?? 0n,
    earnedBytes: earned?.v ?? 0n,
    entries: rows.map(({ r, email, gb }) => ({
      id: r.id,
      createdAt: r.createdAt,
      referredUser: maskEmail(email),
      orderId: r.paymentId,
      orderGb: gb,
      bytes: r.amountBytes,
      status: r.creditedAt ? 'credited' : r.cancelledAt ? 'cancelled' : 'pending',
      dueAt: r.dueAt,
      creditedAt: r.creditedAt,
    })),
  };
}
