/**
 * Promotions: multi-use codes. A `credit` promotion is redeemed like a top-up code; a `bonus` one
 * adds a percentage to a crypto order, counted as a redemption when the order is paid.
 *
 * Limits hold under concurrency because every use first locks the promotion's row (SELECT ... FOR
 * UPDATE): uses of one promotion run one after another, each reading the counts the previous one
 * committed, so no more than `maxRedemptions` in all and `maxPerUser` per user ever succeed.
 * "First purchase only" is about the user, not the promotion: every use (and every code redeemed,
 * `topup-codes.ts`) locks the user's row before the promotion's, so two first-purchase promotions at once
 * are checked one after the other and the second sees the first.
 */
import { and, count, desc, eq, isNotNull, ne, sql } from 'drizzle-orm';
import { BYTES_PER_GB, bytesToGb, bytesToMb, DomainError, gbToBytes, type PromotionKind } from '@proxyhub/core';
import { payments, promotionRedemptions, promotions, topupCodes, type DbOrTx } from '@proxyhub/db';
import { CODE_EXPIRED, CODE_UNKNOWN, lockPurchaser, type RedeemResult } from './topup-codes';
import { isUniqueViolation } from '../lib/db-errors';
import { credit, walletRemaining } from './wallet';

export const PROMO_LIMIT_REACHED = 'This code has reached its limit';
export const PROMO_ALREADY_USED = 'You have already used this code';
export const PROMO_FIRST_PURCHASE_ONLY = 'This code is for first purchases only';
export const PROMO_CODE_TAKEN = 'This code is already in use';
export const PROMO_NOT_FOUND = 'Promotion not found';
export const PROMO_BONUS_AT_CHECKOUT = 'This code gives a bonus on a crypto top-up: enter it on the Top Up page';
export const PROMO_NOT_A_BONUS = 'This code is not a top-up bonus: redeem it as a code';

type Promotion = typeof promotions.$inferSelect;

export interface PromotionView {
  code: string;
  kind: PromotionKind;
  creditsGB: number | null;
  creditsBytes: number | null;
  bonusPercent: number | null;
  maxRedemptions: number;
  maxPerUser: number;
  firstPurchaseOnly: boolean;
  expiresAt: string | null;
  campaign: string | null;
  enabled: boolean;
  redemptions: number;
  creditedBytes: number;
  revenueCents?: number;
  createdBy: string;
  createdAt: string;
}

function view(p: Promotion, totals: { creditedBytes: bigint; revenueCents: number } = { creditedBytes: 0n, revenueCents: 0 }): PromotionView {
  return {
    code: p.code,
    kind: p.kind,
    creditsGB: p.kind === 'credit' ? Math.round(bytesToGb(p.creditsBytes) * 10) / 10 : null,
    creditsBytes: p.kind === 'credit' ? Number(p.creditsBytes) : null,
    bonusPercent: p.kind === 'bonus' ? p.bonusPercent : null,
    maxRedemptions: p.maxRedemptions,
    maxPerUser: p.maxPerUser,
    firstPurchaseOnly: p.firstPurchaseOnly,
    expiresAt: p.expiresAt?.toISOString() ?? null,
    campaign: p.campaign,
    enabled: p.enabled,
    redemptions: p.redemptions,
    creditedBytes: Number(totals.creditedBytes),
    ...(p.kind === 'bonus' ? { revenueCents: totals.revenueCents } : {}),
    createdBy: p.createdBy,
    createdAt: p.createdAt.toISOString(),
  };
}

export interface CreatePromotion {
  code: string;
  kind: PromotionKind;
  creditsGB?: number | undefined;
  bonusPercent?: number | undefined;
  maxRedemptions: number;
  maxPerUser: number;
  firstPurchaseOnly: boolean;
  expiresAt: Date | null;
  campaign: string | null;
  createdByAdminId: string | null;
  /** `admin:<name>`, `internal`, or the tool that made it (`telegram`). */
  createdBy: string;
}

/** A new promotion; its code must be free among top-up codes and promotions (409 otherwise). */
export async function createPromotion(tx: DbOrTx, input: CreatePromotion): Promise<PromotionView> {
  const code = input.code.trim().toUpperCase();
  const [asCode] = await tx.select({ id: topupCodes.id }).from(topupCodes).where(eq(topupCodes.code, code)).limit(1);
  if (asCode) throw new DomainError('CONFLICT', PROMO_CODE_TAKEN);
  const values = {
    code,
    kind: input.kind,
    creditsBytes: input.kind === 'credit' ? gbToBytes(input.creditsGB ?? 0) : 0n,
    bonusPercent: input.kind === 'bonus' ? (input.bonusPercent ?? null) : null,
    maxRedemptions: input.maxRedemptions,
    maxPerUser: input.maxPerUser,
    firstPurchaseOnly: input.firstPurchaseOnly,
    expiresAt: input.expiresAt,
    campaign: input.campaign,
    createdByAdminId: input.createdByAdminId,
    createdBy: input.createdBy,
  };
  // A savepoint, so that a unique violation (two admins, one code) leaves the caller's transaction usable.
  try {
    const row = await tx.transaction(async (sp) => (await sp.insert(promotions).values(values).returning())[0]!);
    return view(row);
  } catch (e) {
    if (isUniqueViolation(e)) throw new DomainError('CONFLICT', PROMO_CODE_TAKEN);
    throw e;
  }
}

/** Every promotion, newest first, with its uses, the bytes it credited and (bonus) the revenue of its orders. */
export async function listPromotions(db: DbOrTx): Promise<{ promotions: PromotionView[] }> {
  const [rows, totals] = await Promise.all([
    db.select().from(promotions).orderBy(desc(promotions.createdAt), desc(promotions.id)),
    db
      .select({
        promotionId: promotionRedemptions.promotionId,
        creditedBytes: sql<string>`coalesce(sum(${promotionRedemptions.creditedBytes}), 0)`,
        revenueCents: sql<string>`coalesce(sum(${promotionRedemptions.revenueCents}), 0)`,
      })
      .from(promotionRedemptions)
      .groupBy(promotionRedemptions.promotionId),
  ]);
  const byId = new Map(totals.map((t) => [t.promotionId, { creditedBytes: BigInt(t.creditedBytes), revenueCents: Number(t.revenueCents) }]));
  return { promotions: rows.map((p) => view(p, byId.get(p.id))) };
}

/** Stops (or restarts) a promotion at once: a stopped one answers as an unknown code. */
export async function setPromotionEnabled(tx: DbOrTx, input: { code: string; enabled: boolean }): Promise<PromotionView> {
  const [row] = await tx.update(promotions).set({ enabled: input.enabled }).where(eq(promotions.code, input.code.trim().toUpperCase())).returning();
  if (!row) throw new DomainError('NOT_FOUND', PROMO_NOT_FOUND);
  return view(row);
}

/** The promotion with this code, its row locked for the rest of the transaction (null: none). */
async function lockPromotion(tx: DbOrTx, code: string): Promise<Promotion | null> {
  const [row] = await tx.select().from(promotions).where(eq(promotions.code, code.trim().toUpperCase())).for('update').limit(1);
  return row ?? null;
}

export async function isPromotionCode(db: DbOrTx, code: string): Promise<boolean> {
  const [row] = await db.select({ id: promotions.id }).from(promotions).where(eq(promotions.code, code.trim().toUpperCase())).limit(1);
  return !!row;
}

async function usesBy(tx: DbOrTx, promotionId: string, userId: string): Promise<number> {
  const [r] = await tx
    .select({ n: count() })
    .from(promotionRedemptions)
    .where(and(eq(promotionRedemptions.promotionId, promotionId), eq(promotionRedemptions.userId, userId)));
  return Number(r?.n ?? 0);
}

/** A user has bought before: a paid crypto order (other than `exceptPaymentId`), a redeemed top-up code or a promotion used. */
async function hasPurchased(tx: DbOrTx, userId: string, exceptPaymentId?: string): Promise<boolean> {
  const [[paid], [code], [promo]] = await Promise.all([
    tx
      .select({ id: payments.id })
      .from(payments)
      .where(and(eq(payments.userId, userId), isNotNull(payments.creditedAt), exceptPaymentId ? ne(payments.id, exceptPaymentId) : undefined))
      .limit(1),
    tx.select({ id: topupCodes.id }).from(topupCodes).where(eq(topupCodes.redeemedBy, userId)).limit(1),
    tx.select({ id: promotionRedemptions.id }).from(promotionRedemptions).where(eq(promotionRedemptions.userId, userId)).limit(1),
  ]);
  return !!(paid || code || promo);
}

type Refusal = { status: 'NOT_FOUND' | 'BAD_REQUEST' | 'CONFLICT' | 'FORBIDDEN'; message: string };

/** Why this user may not use this (locked) promotion now, or null. The order of checks is the order of the messages' relevance. */
async function refusal(tx: DbOrTx, p: Promotion | null, userId: string): Promise<Refusal | null> {
  if (!p || !p.enabled) return { status: 'NOT_FOUND', message: CODE_UNKNOWN };
  if (p.expiresAt && p.expiresAt.getTime() <= Date.now()) return { status: 'BAD_REQUEST', message: CODE_EXPIRED };
  if ((await usesBy(tx, p.id, userId)) >= p.maxPerUser) return { status: 'CONFLICT', message: PROMO_ALREADY_USED };
  if (p.redemptions >= p.maxRedemptions) return { status: 'CONFLICT', message: PROMO_LIMIT_REACHED };
  if (p.firstPurchaseOnly && (await hasPurchased(tx, userId))) return { status: 'FORBIDDEN', message: PROMO_FIRST_PURCHASE_ONLY };
  return null;
}

async function recordUse(tx: DbOrTx, p: Promotion, use: { userId: string; paymentId?: string; creditedBytes: bigint; revenueCents?: number }) {
  const [row] = await tx
    .insert(promotionRedemptions)
    .values({ promotionId: p.id, userId: use.userId, paymentId: use.paymentId ?? null, creditedBytes: use.creditedBytes, revenueCents: use.revenueCents ?? 0 })
    .returning({ id: promotionRedemptions.id });
  await tx
    .update(promotions)
    .set({ redemptions: sql`${promotions.redemptions} + 1` })
    .where(eq(promotions.id, p.id));
  return row!.id;
}

/** Redeems a credit promotion for a user (POST /auth/redeem-code answers as for a code). */
export async function redeemPromotion(tx: DbOrTx, input: { userId: string; code: string }): Promise<RedeemResult> {
  await lockPurchaser(tx, input.userId);
  const p = await lockPromotion(tx, input.code);
  const no = await refusal(tx, p, input.userId);
  if (no) throw new DomainError(no.status, no.message);
  if (p!.kind !== 'credit') throw new DomainError('BAD_REQUEST', PROMO_BONUS_AT_CHECKOUT);
  const useId = await recordUse(tx, p!, { userId: input.userId, creditedBytes: p!.creditsBytes });
  const wallet = { userId: input.userId };
  await credit(tx, { wallet, bytes: p!.creditsBytes, kind: 'code', sourceKey: `promotion:${useId}`, note: p!.code });
  return {
    creditedBytes: p!.creditsBytes,
    remainingBytes: await walletRemaining(tx, wallet),
    message: `Successfully redeemed ${bytesToMb(p!.creditsBytes)} MB`,
  };
}

export interface OrderBonus {
  promotionId: string;
  bonusPercent: number;
  bonusBytes: bigint;
}

/** The bytes a bonus adds to an order of `gbAmount` GB: floored to the byte. */
export const bonusBytesFor = (gbAmount: number, bonusPercent: number): bigint => (BigInt(gbAmount) * BYTES_PER_GB * BigInt(bonusPercent)) / 100n;

/**
 * Checks a promo code for a crypto order about to be created: a 400 with the redeem messages when
 * it cannot be used. Nothing is counted here: the use is counted when the order is paid.
 */
export async function orderBonus(tx: DbOrTx, input: { userId: string; code: string; gbAmount: number }): Promise<OrderBonus> {
  const p = await lockPromotion(tx, input.code);
  const no = await refusal(tx, p, input.userId);
  if (no) throw new DomainError('BAD_REQUEST', no.message);
  if (p!.kind !== 'bonus') throw new DomainError('BAD_REQUEST', PROMO_NOT_A_BONUS);
  return { promotionId: p!.id, bonusPercent: p!.bonusPercent!, bonusBytes: bonusBytesFor(input.gbAmount, p!.bonusPercent!) };
}

/**
 * Counts a paid order's bonus as one use of its promotion. The order was accepted when the
 * promotion had room and, for a first-purchase one, before any purchase; if it filled up (in all or
 * for this user), or the user bought something else, before the payment came, the order is credited
 * without its bonus, so that the limits stay exact. Returns null when the bonus stands, otherwise
 * why not, in words for the receipt.
 */
export async function claimOrderBonus(
  tx: DbOrTx,
  order: { id: string; userId: string; promotionId: string | null; bonusBytes: bigint; priceCents: number },
): Promise<string | null> {
  if (!order.promotionId || order.bonusBytes <= 0n) return PROMO_NOT_FOUND;
  await lockPurchaser(tx, order.userId);
  const [p] = await tx.select().from(promotions).where(eq(promotions.id, order.promotionId)).for('update');
  if (!p) return PROMO_NOT_FOUND;
  const [already] = await tx.select({ id: promotionRedemptions.id }).from(promotionRedemptions).where(eq(promotionRedemptions.paymentId, order.id)).limit(1);
  if (already) return null;
  const why =
    p.redemptions >= p.maxRedemptions
      ? PROMO_LIMIT_REACHED
      : (await usesBy(tx, p.id, order.userId)) >= p.maxPerUser
        ? PROMO_ALREADY_USED
        : p.firstPurchaseOnly && (await hasPurchased(tx, order.userId, order.id))
          ? PROMO_FIRST_PURCHASE_ONLY
          : null;
  if (why) return `${p.code} bonus not applied: ${why}`;
  await recordUse(tx, p, { userId: order.userId, paymentId: order.id, creditedBytes: order.bonusBytes, revenueCents: order.priceCents });
  return null;
}

/** What the Top Up page shows before paying: the bonus this code would add to an order of this size. */
export async function previewPromotion(tx: DbOrTx, input: { userId: string; code: string; gbAmount: number }) {
  const b = await orderBonus(tx, input);
  return {
    code: input.code.trim().toUpperCase(),
    bonusPercent: b.bonusPercent,
    bonusBytes: b.bonusBytes,
    creditsBytes: BigInt(input.gbAmount) * BYTES_PER_GB + b.bonusBytes,
  };
}
