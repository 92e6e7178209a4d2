/**
 * Gift codes: a user turns part of their balance into a single-use top-up code for someone else.
 * A gift is a row of `topup_codes` with `gifted_by` set, so it is redeemed by the one redeem path
 * (`topup-codes.ts`). The bytes leave the giver's wallet when the code is made (ledger `gift:<id>`) and
 * come back when the giver cancels it unredeemed (`gift-cancel:<id>`); between the two they are in
 * no wallet and in the ledger sum of none, so the ledger invariant holds throughout.
 * Threats: spending more than one has (the wallet row is locked, the debit is conditional), double
 * refunds or a refund of a redeemed gift (cancel and redeem both claim the row with a conditional
 * UPDATE; the ledger's unique source backs it up), someone else's gift (cancel matches the giver).
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import { DomainError, formatGb, gbToBytes } from '@proxyhub/core';
import { topupCodes, type DbOrTx } from '@proxyhub/db';
import { recordAudit, type Actor } from '../admin/audit-log';
import { newTopupCode } from './topup-codes';
import { credit, walletCredits } from './wallet';

export const GIFT_TOO_LARGE = 'Not enough data for this gift';
export const GIFT_NOT_FOUND = 'No such gift code of yours';
export const GIFT_REDEEMED = 'This gift code has already been redeemed';
export const GIFT_CANCELLED = 'This gift code is already cancelled';
/** Unredeemed gifts a user may hold at once: each is bytes out of every wallet. */
export const GIFT_MAX_OPEN = 50;

export const userActor = (userId: string, sourceAddress: string): Actor => ({ actor: `user:${userId}`, adminId: null, sourceAddress });

export interface GiftCode {
  code: string;
  creditsBytes: bigint;
  creditsGB: string;
  createdAt: Date;
  status: 'open' | 'redeemed' | 'cancelled';
  redeemedAt: Date | null;
  cancelledAt: Date | null;
}

function view(r: typeof topupCodes.$inferSelect): GiftCode {
  return {
    code: r.code,
    creditsBytes: r.creditsBytes,
    creditsGB: formatGb(r.creditsBytes),
    createdAt: r.createdAt,
    status: r.redeemedAt ? 'redeemed' : r.revokedAt ? 'cancelled' : 'open',
    redeemedAt: r.redeemedAt,
    cancelledAt: r.revokedAt,
  };
}

/** Takes `creditsGB` from the user's credits and makes a code worth exactly that. 402 when the credits are short. */
export async function createGiftCode(tx: DbOrTx, input: { userId: string; creditsGB: number; actor: Actor }): Promise<{ code: string; creditsBytes: bigint }> {
  const bytes = gbToBytes(input.creditsGB);
  const wallet = { userId: input.userId };
  // The lock queues concurrent gifts of one user: each sees the credits the previous one left.
  const available = await walletCredits(tx, wallet, { lock: true });
  if (available < bytes) throw new DomainError('PAYMENT_REQUIRED', GIFT_TOO_LARGE);
  const open = await tx
    .select({ id: topupCodes.id })
    .from(topupCodes)
    .where(and(eq(topupCodes.giftedBy, input.userId), isNull(topupCodes.redeemedAt), isNull(topupCodes.revokedAt)))
    .limit(GIFT_MAX_OPEN);
  if (open.length >= GIFT_MAX_OPEN) throw new DomainError('CONFLICT', `You have ${GIFT_MAX_OPEN} unredeemed gift codes; cancel one first`);
  const [row] = await tx.insert(topupCodes).values({ code: newTopupCode(), creditsBytes: bytes, giftedBy: input.userId, createdBy: 'gift' }).returning();
  await credit(tx, { wallet, bytes: -bytes, kind: 'gift', sourceKey: `gift:${row!.id}` });
  await recordAudit(tx, input.actor, { action: 'gift.create', target: `user:${input.userId}`, changes: { bytes, giftCodeId: row!.id } });
  return { code: row!.code, creditsBytes: bytes };
}

/** The user's gift codes, newest first. */
export async function listGiftCodes(db: DbOrTx, userId: string): Promise<GiftCode[]> {
  const rows = await db.select().from(topupCodes).where(eq(topupCodes.giftedBy, userId)).orderBy(desc(topupCodes.createdAt), desc(topupCodes.id)).limit(200);
  return rows.map(view);
}

/** Withdraws an unredeemed gift of the user's and gives its bytes back. */
export async function cancelGiftCode(tx: DbOrTx, input: { userId: string; code: string; actor: Actor }): Promise<GiftCode & { newCredits: bigint }> {
  const code = input.code.trim().toUpperCase();
  const mine = and(eq(topupCodes.code, code), eq(topupCodes.giftedBy, input.userId));
  const [claimed] = await tx
    .update(topupCodes)
    .set({ revokedAt: new Date() })
    .where(and(mine, isNull(topupCodes.redeemedAt), isNull(topupCodes.revokedAt)))
    .returning();
  if (!claimed) {
    const [row] = await tx.select().from(topupCodes).where(mine).limit(1);
    if (!row) throw new DomainError('NOT_FOUND', GIFT_NOT_FOUND);
    throw new DomainError('CONFLICT', row.redeemedAt ? GIFT_REDEEMED : GIFT_CANCELLED);
  }
  const newCredits = await credit(tx, { wallet: { userId: input.userId }, bytes: claimed.creditsBytes, kind: 'gift', sourceKey: `gift-cancel:${claimed.id}` });
  if (newCredits === null) throw new DomainError('CONFLICT', GIFT_CANCELLED);
  await recordAudit(tx, input.actor, {
    action: 'gift.cancel',
    target: `user:${input.userId}`,
    changes: { bytes: claimed.creditsBytes, giftCodeId: claimed.id },
  });
  return { ...view(claimed), newCredits };
}
