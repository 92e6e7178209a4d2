/**
 * Top-up codes. Threats: guessing (80 random bits per code, redeem attempts rate limited per user and
 * per IP by the caller), double spending (the conditional UPDATE claims a code once, the ledger's
 * unique source key backs it up), look-alike typos (no 0/O, 1/I/L in the alphabet).
 */
import { and, eq, gt, gte, isNull, or, sql } from 'drizzle-orm';
import { randomString } from '@proxyhub/auth';
import { bytesToMb, DomainError, gbToBytes, NOT_ALLOWED_FOR_ROLE } from '@proxyhub/core';
import { adminUsers, topupCodes, users, type DbOrTx } from '@proxyhub/db';
import { credit, walletRemaining } from './wallet';

/** Uppercase, no look-alikes (0 O 1 I L): 31 symbols, ~4.95 bits each. */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** 16 symbols = ~79 random bits; the spec allows 20 characters. */
export const CODE_LENGTH = 16;

export function newTopupCode(): string {
  return randomString(CODE_ALPHABET, CODE_LENGTH);
}

export interface CreatedCode {
  code: string;
  creditsGB: number;
  creditsMB: number;
  creditsBytes: bigint;
  expiresAt: Date | null;
}

/**
 * A code is credit: an admin whose balance adjustments are capped (support) may not mint more than
 * its cap in one call nor in one UTC day, or it could mint what it may not adjust. The admin's row
 * is locked, so concurrent calls of one admin are counted one after another.
 */
async function withinMintCap(tx: DbOrTx, adminId: string, capBytes: bigint, bytes: bigint): Promise<boolean> {
  if (bytes > capBytes) return false;
  await tx.select({ id: adminUsers.id }).from(adminUsers).where(eq(adminUsers.id, adminId)).for('update');
  const now = new Date();
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const [row] = await tx
    .select({ v: sql`coalesce(sum(${topupCodes.creditsBytes}), 0)::text`.mapWith(BigInt) })
    .from(topupCodes)
    .where(and(eq(topupCodes.createdByAdminId, adminId), gte(topupCodes.createdAt, dayStart)));
  return (row?.v ?? 0n) + bytes <= capBytes;
}

export async function createCodes(
  tx: DbOrTx,
  input: {
    creditsGB: number;
    quantity: number;
    expiresAt: Date | null;
    createdByAdminId: string | null;
    createdBy: string;
    /** The most this admin may mint per call and per UTC day, in GB (absent: no cap). */
    capGB?: number | undefined;
  },
): Promise<CreatedCode[]> {
  const creditsBytes = gbToBytes(input.creditsGB);
  if (input.capGB !== undefined) {
    const allowed =
      input.createdByAdminId !== null && (await withinMintCap(tx, input.createdByAdminId, gbToBytes(input.capGB), creditsBytes * BigInt(input.quantity)));
    if (!allowed) throw new DomainError('FORBIDDEN', NOT_ALLOWED_FOR_ROLE);
  }
  const values = Array.from({ length: input.quantity }, () => ({
    code: newTopupCode(),
    creditsBytes,
    expiresAt: input.expiresAt,
    createdByAdminId: input.createdByAdminId,
    createdBy: input.createdBy,
  }));
  // A collision of 79-bit codes is not a practical event; the unique index would refuse it anyway.
  const rows = await tx.insert(topupCodes).values(values).returning();
  // The face value the admin minted (whole tenths): its bytes are that amount rounded to the byte,
  // which truncated to two decimals would read 0.09 for a 0.1 GB code.
  const faceValueGB = Math.round(input.creditsGB * 10) / 10;
  return rows.map((r) => ({
    code: r.code,
    creditsGB: faceValueGB,
    creditsMB: bytesToMb(r.creditsBytes),
    creditsBytes: r.creditsBytes,
    expiresAt: r.expiresAt,
  }));
}

/**
 * Locks the user's row for the rest of the transaction: purchases of one user (codes, promotions,
 * an order's bonus) then run one after another. Taken before any promotion's lock, always.
 * NO KEY UPDATE, not UPDATE: a redeemed code's foreign key to the user already holds a KEY SHARE
 * lock on that row, and two redemptions each holding one while asking FOR UPDATE deadlocked.
 */
export async function lockPurchaser(tx: DbOrTx, userId: string): Promise<void> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
}

export const CODE_UNKNOWN = 'Invalid code. Please check the code and try again.';
export const CODE_EXPIRED = 'This code has expired.';
export const CODE_USED = 'This code has already been redeemed.';

export interface RedeemResult {
  creditedBytes: bigint;
  /** The user's remaining after the credit (wallet plus open leases), in bytes. */
  remainingBytes: bigint;
  message: string;
}

/**
 * Credits a code to a user exactly once. Safe under concurrent calls: the UPDATE's WHERE decides.
 * The claimed code's user row is then locked, as a promotion's use locks it: a code redeemed is a
 * purchase, and a first-purchase promotion redeemed at the same moment must see it (or be seen by
 * it). Code row first, user second, as a gift's cancel takes them.
 */
export async function redeemCode(tx: DbOrTx, input: { userId: string; code: string }): Promise<RedeemResult> {
  const code = input.code.trim().toUpperCase();
  const [claimed] = await tx
    .update(topupCodes)
    .set({ redeemedBy: input.userId, redeemedAt: sql`now()` })
    .where(
      and(
        eq(topupCodes.code, code),
        isNull(topupCodes.redeemedAt),
        isNull(topupCodes.revokedAt),
        or(isNull(topupCodes.expiresAt), gt(topupCodes.expiresAt, sql`now()`)),
      ),
    )
    .returning();
  if (!claimed) {
    const [row] = await tx.select().from(topupCodes).where(eq(topupCodes.code, code)).limit(1);
    // A revoked code is answered as if it never existed: it is no longer anything to its holder.
    if (!row || row.revokedAt) throw new DomainError('NOT_FOUND', CODE_UNKNOWN);
    if (row.redeemedAt) throw new DomainError('CONFLICT', CODE_USED);
    throw new DomainError('BAD_REQUEST', CODE_EXPIRED);
  }
  await lockPurchaser(tx, input.userId);
  const wallet = { userId: input.userId };
  if ((await credit(tx, { wallet, bytes: claimed.creditsBytes, kind: 'code', sourceKey: `code:${claimed.id}` })) === null)
    throw new DomainError('CONFLICT', CODE_USED);
  return {
    creditedBytes: claimed.creditsBytes,
    remainingBytes: await walletRemaining(tx, wallet),
    message: `Successfully redeemed ${bytesToMb(claimed.creditsBytes)} MB`,
  };
}
