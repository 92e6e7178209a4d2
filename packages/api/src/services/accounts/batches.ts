/**
 * Batches: proxy accounts sold by internal tools (the shop chat bot) with an allowance of their own,
 * a wallet until a buyer associates the batch with their account. Association happens once: the
 * row lock and the `associated_user_id IS NULL` condition decide under concurrency, and the move of
 * the allowance is two ledger entries with unique source keys.
 *
 * After association the accounts spend the buyer's wallet, but together never more than the batch
 * brought (cap_bytes): whoever still holds a batch account's password (the shop, a reseller) must not
 * be able to drain the rest of the buyer's balance.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { newProxyPassword, newProxyUserId, randomString, type SecretBox } from '@proxyhub/auth';
import { bytesToMb, DomainError, gbToBytes, type BATCH_USAGE_TYPES } from '@proxyhub/core';
import { batches, proxyAccounts, type DbOrTx } from '@proxyhub/db';
import { CODE_ALPHABET } from '../money/topup-codes';
import { batchLeasedBytes, credit, moveLeasedClaim } from '../money/wallet';

/** `BT` + 18 symbols (~89 bits): handed to the buyer, so it must not be guessable. */
export function newBatchCode(): string {
  return `BT${randomString(CODE_ALPHABET, 18)}`;
}

export interface CreatedBatch {
  batchId: string;
  accounts: Array<{ proxyUserId: string; proxyPassword: string }>;
}

export async function createBatch(
  tx: DbOrTx,
  secrets: SecretBox,
  input: { accounts: number; creditsGB: number; usageType: (typeof BATCH_USAGE_TYPES)[number] },
): Promise<CreatedBatch> {
  const [batch] = await tx.insert(batches).values({ batchCode: newBatchCode(), usageType: input.usageType }).returning();
  await credit(tx, { wallet: { batchId: batch!.id }, bytes: gbToBytes(input.creditsGB), kind: 'batch', sourceKey: `batch:${batch!.id}` });
  const accounts = Array.from({ length: input.accounts }, () => ({ proxyUserId: newProxyUserId(), proxyPassword: newProxyPassword() }));
  await tx.insert(proxyAccounts).values(
    accounts.map((a) => ({
      kind: 'batch' as const,
      name: batch!.batchCode,
      proxyUserId: a.proxyUserId,
      proxyPasswordEnc: secrets.encrypt(a.proxyPassword),
      userId: null,
      batchId: batch!.id,
      usageType: input.usageType,
    })),
  );
  return { batchId: batch!.batchCode, accounts };
}

export const BATCH_UNKNOWN = 'Batch not found. Please check the batch ID.';
export const BATCH_TAKEN = 'This batch has already been associated with an account.';
export const BATCH_ALREADY_YOURS = 'This batch is already associated with your account.';

export interface ProcessedBatch {
  message: string;
  creditedBytes: bigint;
  accounts: number;
}

/** Associates a batch with a user: its accounts become theirs and its remaining allowance joins their credits. */
export async function processBatch(tx: DbOrTx, input: { userId: string; batchId: string }): Promise<ProcessedBatch> {
  const code = input.batchId.trim().toUpperCase();
  const [batch] = await tx.select().from(batches).where(eq(batches.batchCode, code)).for('update');
  if (!batch) throw new DomainError('NOT_FOUND', BATCH_UNKNOWN);
  if (batch.associatedUserId) throw new DomainError('CONFLICT', batch.associatedUserId === input.userId ? BATCH_ALREADY_YOURS : BATCH_TAKEN);
  // Bytes a gateway leased from the batch and has not reported yet: their usage or return now goes
  // to the user (the gateway resolves the wallet when it reports), so the claim on them moves too,
  // and they are part of what the batch brought.
  const inFlight = await batchLeasedBytes(tx, batch.id);
  const remaining = batch.creditsBytes;
  const [claimed] = await tx
    .update(batches)
    .set({ associatedUserId: input.userId, associatedAt: new Date(), capBytes: remaining + inFlight, capUsedBytes: 0n })
    .where(and(eq(batches.id, batch.id), isNull(batches.associatedUserId)))
    .returning({ id: batches.id });
  if (!claimed) throw new DomainError('CONFLICT', BATCH_TAKEN);
  if (remaining > 0n) {
    await credit(tx, {
      wallet: { batchId: batch.id },
      bytes: -remaining,
      kind: 'batch_association',
      sourceKey: `batch-out:${batch.id}`,
      note: `to user ${input.userId}`,
    });
    await credit(tx, {
      wallet: { userId: input.userId },
      bytes: remaining,
      kind: 'batch_association',
      sourceKey: `batch-in:${batch.id}`,
      note: `from batch ${batch.batchCode}`,
    });
  }
  await moveLeasedClaim(tx, {
    from: { batchId: batch.id },
    to: { userId: input.userId },
    bytes: inFlight,
    kind: 'batch_association',
    sourceKeys: { out: `batch-lease-out:${batch.id}`, in: `batch-lease-in:${batch.id}` },
    note: 'open gateway leases move with the accounts',
  });
  const moved = await tx
    .update(proxyAccounts)
    .set({ userId: input.userId })
    .where(and(eq(proxyAccounts.batchId, batch.id), isNull(proxyAccounts.userId)))
    .returning({ id: proxyAccounts.id });
  return {
    message: `Batch associated: ${moved.length} proxy account${moved.length === 1 ? '' : 's'} and ${bytesToMb(remaining)} MB added to your account.`,
    creditedBytes: remaining,
    accounts: moved.length,
  };
}
