/**
 * Referrals. Every user has a referral code (made by the database); a user who registers with one
 * is referred by its owner, once and for good. Each credit of a referred user's crypto order earns
 * the referrer REFERRAL_PERCENT % of it, pending for REFERRAL_PENDING_DAYS, then credited by
 * `creditDueReferrals` (a periodic job); a refund before the pending time ends cancels it. Codes
 * redeemed earn nothing: only the payments service calls `onOrderCredited`.
 * Threats: crediting twice (one pending row per order credit, keyed on its ledger source; the job
 * claims a row with a conditional UPDATE and the ledger's unique `referral:<id>` backs it up, so
 * concurrent runs and restarts credit once), self-referral (refused), enumeration of referred users
 * (the referrer sees masked emails only). A second account of one's own is refused its earnings
 * when it signed up from a network (IPv4 /24, IPv6 /64) its referrer used within 30 days, or pays
 * with the payer id (where the provider gives one) the referrer paid with: such orders are recorded
 * as not eligible, with the reason, and earn nothing. Pending earnings are in no wallet, so nothing
 * (gift codes included) spends them before they are due.
 */
import { and, count, desc, eq, gt, gte, isNull, lte, sql } from 'drizzle-orm';
import { DomainError, networkKey } from '@proxyhub/core';
import { payments, referralCredits, userNetworks, users, type DbOrTx } from '@proxyhub/db';
import type { ApiConfig } from '../../config';
import { recordAudit, type Actor } from '../admin/audit-log';
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
/** Why an order earned its referrer nothing, as the referrer's page says it. */
export const REFERRAL_SAME_NETWORK = 'Signed up from the same network as you';
export const REFERRAL_SAME_PAYER = 'Paid with the same payment account as you';
/** A network the referrer used within this many days before a sign-up is still the referrer's. */
export const REFERRAL_NETWORK_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Notes that a user registered or signed in from `address` now (nothing for a non-customer address). */
export async function recordNetwork(db: DbOrTx, userId: string, address: string | undefined): Promise<void> {
  const network = networkKey(address);
  if (!network) return;
  await db
    .insert(userNetworks)
    .values({ userId, network })
    .onConflictDoUpdate({ target: [userNetworks.userId, userNetworks.network], set: { lastSeenAt: sql`now()` } });
}

async function usedNetworkRecently(tx: DbOrTx, userId: string, network: string): Promise<boolean> {
  const since = new Date(Date.now() - REFERRAL_NETWORK_DAYS * DAY_MS);
  const [row] = await tx
    .select({ network: userNetworks.network })
    .from(userNetworks)
    .where(and(eq(userNetworks.userId, userId), eq(userNetworks.network, network), gte(userNetworks.lastSeenAt, since)))
    .limit(1);
  return !!row;
}
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

/**
 * Records who referred `userId`; only once, and never the user themself. `address` is where the
 * new user signed up from: the referrer's own network makes the referral one that earns nothing.
 */
export async function attachReferrer(tx: DbOrTx, input: { userId: string; referrerId: string; address?: string | undefined }): Promise<boolean> {
  if (input.referrerId === input.userId) throw new DomainError('BAD_REQUEST', SELF_REFERRAL, { field: 'referralCode' });
  const network = networkKey(input.address);
  const sameNetwork = network !== null && (await usedNetworkRecently(tx, input.referrerId, network));
  const set = await tx
    .update(users)
    .set({ referredBy: input.referrerId, referralIneligibleReason: sameNetwork ? REFERRAL_SAME_NETWORK : null })
    .where(and(eq(users.id, input.userId), isNull(users.referredBy)))
    .returning({ id: users.id });
  return set.length > 0;
}

/** Whether the referrer has an order paid with this payer id. */
async function referrerPaidAs(tx: DbOrTx, referrerId: string, payerId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: payments.id })
    .from(payments)
    .where(and(eq(payments.userId, referrerId), eq(payments.payerId, payerId)))
    .limit(1);
  return !!row;
}

/**
 * The hook the payments service calls where an order's credit is applied, in its transaction:
 * records the referrer's earning for this credit (`source` is the credit's ledger source), and
 * credits it at once when nothing is to be pending.
 */
export async function onOrderCredited(
  tx: DbOrTx,
  settings: ReferralSettings,
  input: { paymentId: string; userId: string; bytes: bigint; source: string; payerId?: string | null; now?: Date },
): Promise<void> {
  const [buyer] = await tx
    .select({ referrerId: users.referredBy, ineligible: users.referralIneligibleReason })
    .from(users)
    .where(eq(users.id, input.userId))
    .limit(1);
  if (!buyer?.referrerId) return;
  const amount = (input.bytes * BigInt(settings.percent)) / 100n;
  if (amount <= 0n) return;
  const now = input.now ?? new Date();
  const ineligible = buyer.ineligible ?? (input.payerId && (await referrerPaidAs(tx, buyer.referrerId, input.payerId)) ? REFERRAL_SAME_PAYER : null);
  const [row] = await tx
    .insert(referralCredits)
    .values({
      referrerId: buyer.referrerId,
      referredUserId: input.userId,
      paymentId: input.paymentId,
      source: input.source,
      // Not eligible: recorded so the referrer sees why, worth nothing and never due.
      amountBytes: ineligible ? 0n : amount,
      dueAt: new Date(now.getTime() + settings.pendingDays * DAY_MS),
      ...(ineligible ? { cancelledAt: now, ineligibleReason: ineligible } : {}),
    })
    .onConflictDoNothing({ target: referralCredits.source })
    .returning();
  if (!row) return;
  if (ineligible) {
    await recordAudit(tx, internalActor, {
      action: 'referral.not_eligible',
      target: `user:${row.referrerId}`,
      changes: { referralCreditId: row.id, paymentId: row.paymentId, bytes: amount },
      reason: ineligible,
    });
    return;
  }
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
  status: 'pending' | 'credited' | 'cancelled' | 'not_eligible';
  /** Why a not-eligible order earned nothing; null otherwise. */
  reason: string | null;
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
      status: r.ineligibleReason ? 'not_eligible' : r.creditedAt ? 'credited' : r.cancelledAt ? 'cancelled' : 'pending',
      reason: r.ineligibleReason,
      dueAt: r.dueAt,
      creditedAt: r.creditedAt,
    })),
  };
}
