import { eq, sql } from 'drizzle-orm';
import type { UsageType } from '@proxyhub/core';
import { batches, proxyAccounts, users, type DbOrTx } from '@proxyhub/db';

/**
 * Whose credits a proxy account spends: its owner's (users.credits_bytes), or, for an account of a
 * batch not yet associated with a user, the batch's own allowance (batches.credits_bytes). After
 * association a batch account spends its owner's wallet but never past its batch's cap.
 */
export type WalletRef = { kind: 'user'; id: string } | { kind: 'batch'; id: string };

export interface AccountWallet {
  proxyAccountId: string;
  usageType: UsageType;
  wallet: WalletRef;
  /** The account, its owner or its batch is disabled. */
  disabled: boolean;
  /** The associated batch whose cap bounds this account's spending (batches.cap_bytes), if any. */
  capBatchId: string | null;
}

export function walletKey(w: WalletRef): string {
  return `${w.kind}:${w.id}`;
}

/** The select shape every gateway query uses to find an account's wallet. */
export const accountWalletColumns = {
  proxyAccountId: proxyAccounts.id,
  usageType: proxyAccounts.usageType,
  accountUserId: proxyAccounts.userId,
  batchId: proxyAccounts.batchId,
  batchUserId: batches.associatedUserId,
  accountDisabledAt: proxyAccounts.disabledAt,
  userDisabledAt: users.disabledAt,
};

export interface AccountWalletRow {
  proxyAccountId: string;
  usageType: UsageType;
  accountUserId: string | null;
  batchId: string | null;
  batchUserId: string | null;
  accountDisabledAt: Date | null;
  userDisabledAt: Date | null;
}

export function toAccountWallet(r: AccountWalletRow): AccountWallet {
  const userId = r.accountUserId ?? r.batchUserId;
  const wallet: WalletRef = r.batchId && !r.batchUserId ? { kind: 'batch', id: r.batchId } : userId ? { kind: 'user', id: userId } : { kind: 'batch', id: r.batchId! };
  return {
    proxyAccountId: r.proxyAccountId,
    usageType: r.usageType,
    wallet,
    disabled: r.accountDisabledAt !== null || r.userDisabledAt !== null,
    capBatchId: r.batchId && r.batchUserId ? r.batchId : null,
  };
}

/** Joins an account to its batch and to the user whose credits it spends. */
export function accountWalletQuery(db: DbOrTx) {
  return db
    .select(accountWalletColumns)
    .from(proxyAccounts)
    .leftJoin(batches, eq(batches.id, proxyAccounts.batchId))
    .leftJoin(users, eq(users.id, sql`coalesce(${proxyAccounts.userId}, ${batches.associatedUserId})`));
}

export async function findAccountWallet(db: DbOrTx, proxyAccountId: string): Promise<AccountWallet | null> {
  const [row] = await accountWalletQuery(db).where(eq(proxyAccounts.id, proxyAccountId)).limit(1);
  return row ? toAccountWallet(row) : null;
}

export function walletTable(w: WalletRef) {
  return w.kind === 'user' ? users : batches;
}

/** Current balance, locking the wallet row for the rest of the transaction. */
export async function lockWallet(tx: DbOrTx, w: WalletRef): Promise<bigint | null> {
  const table = walletTable(w);
  const [row] = await tx.select({ credits: table.creditsBytes }).from(table).where(eq(table.id, w.id)).for('update');
  return row ? row.credits : null;
}

export async function walletBalance(db: DbOrTx, w: WalletRef): Promise<bigint> {
  const table = walletTable(w);
  const [row] = await db.select({ credits: table.creditsBytes }).from(table).where(eq(table.id, w.id));
  return row?.credits ?? 0n;
}

/** Moves a wallet: credits and total usage by signed deltas, in the caller's transaction. */
export async function adjustWallet(tx: DbOrTx, w: WalletRef, delta: { credits: bigint; usage: bigint }): Promise<void> {
  if (delta.credits === 0n && delta.usage === 0n) return;
  const table = walletTable(w);
  await tx
    .update(table)
    .set({ creditsBytes: sql`${table.creditsBytes} + ${delta.credits}`, totalUsageBytes: sql`${table.totalUsageBytes} + ${delta.usage}` })
    .where(eq(table.id, w.id));
}
