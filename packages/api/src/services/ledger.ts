/**
 * The credit ledger. Every change of a balance that is not usage is an append-only entry written
 * in the same transaction as the balance change; `sourceKey` is unique, so a repeat of the same
 * source (a code, a payment, a batch) cannot credit twice even under concurrent calls.
 *
 * Invariant (DESIGN.md), checked by tests after every flow:
 *   sum(credit_entries) = credits_bytes + bytes leased to gateways and not yet reported + total_usage_bytes
 * per wallet (a user, or a batch not yet associated), and so in total.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { DomainError } from '@proxyhub/core';
import { batches, creditEntries, gatewayLeases, proxyAccounts, users, type DbOrTx } from '@proxyhub/db';
import type { CREDIT_KINDS } from '@proxyhub/db';

export type CreditKind = (typeof CREDIT_KINDS)[number];
export type Wallet = { userId: string } | { batchId: string };

export interface CreditInput {
  wallet: Wallet;
  /** Positive credits, negative debits (reversals, moves out of a batch). */
  bytes: bigint;
  kind: CreditKind;
  /** Unique per source: `code:<id>`, `payment:<id>`, ... */
  sourceKey: string;
  note?: string;
}

/**
 * Writes the ledger entry and moves the wallet balance. Returns the new balance, or null when this
 * source was already credited (the unique source key refused the entry; nothing changed).
 * Must run inside a transaction. A debit that would take the balance below zero is refused.
 */
export async function credit(tx: DbOrTx, input: CreditInput): Promise<bigint | null> {
  const inserted = await tx
    .insert(creditEntries)
    .values({
      userId: 'userId' in input.wallet ? input.wallet.userId : null,
      batchId: 'batchId' in input.wallet ? input.wallet.batchId : null,
      kind: input.kind,
      sourceKey: input.sourceKey,
      amountBytes: input.bytes,
      note: input.note ?? null,
    })
    .onConflictDoNothing({ target: creditEntries.sourceKey })
    .returning({ id: creditEntries.id });
  if (!inserted.length) return null;
  const table = 'userId' in input.wallet ? users : batches;
  const id = 'userId' in input.wallet ? input.wallet.userId : input.wallet.batchId;
  const [row] = await tx
    .update(table)
    .set({ creditsBytes: sql`${table.creditsBytes} + ${input.bytes}` })
    .where(and(eq(table.id, id), sql`${table.creditsBytes} + ${input.bytes} >= 0`))
    .returning({ balance: table.creditsBytes });
  if (!row) throw new DomainError('CONFLICT', 'The balance is too low for this change');
  return row.balance;
}

export interface LedgerCheck {
  entries: bigint;
  credits: bigint;
  leased: bigint;
  usage: bigint;
  ok: boolean;
}

const sum = (expr: ReturnType<typeof sql>) => sql<string>`coalesce(sum(${expr}), 0)::text`;

/** The invariant over the whole database (users and batches together). */
export async function checkLedger(db: DbOrTx): Promise<LedgerCheck> {
  const [e] = await db.select({ v: sum(sql`${creditEntries.amountBytes}`) }).from(creditEntries);
  const [u] = await db.select({ c: sum(sql`${users.creditsBytes}`), t: sum(sql`${users.totalUsageBytes}`) }).from(users);
  const [b] = await db.select({ c: sum(sql`${batches.creditsBytes}`), t: sum(sql`${batches.totalUsageBytes}`) }).from(batches);
  const [l] = await db
    .select({ v: sum(sql`${gatewayLeases.grantedBytes} - ${gatewayLeases.usedBytes}`) })
    .from(gatewayLeases)
    .where(isNull(gatewayLeases.settledAt));
  const entries = BigInt(e!.v);
  const credits = BigInt(u!.c) + BigInt(b!.c);
  const usage = BigInt(u!.t) + BigInt(b!.t);
  const leased = BigInt(l!.v);
  return { entries, credits, leased, usage, ok: entries === credits + leased + usage };
}

/** The invariant for one user's wallet (accounts owned by the user, leases on them). */
export async function checkUserLedger(db: DbOrTx, userId: string): Promise<LedgerCheck> {
  const [e] = await db.select({ v: sum(sql`${creditEntries.amountBytes}`) }).from(creditEntries).where(eq(creditEntries.userId, userId));
  const [u] = await db.select({ c: users.creditsBytes, t: users.totalUsageBytes }).from(users).where(eq(users.id, userId));
  const [l] = await db
    .select({ v: sum(sql`${gatewayLeases.grantedBytes} - ${gatewayLeases.usedBytes}`) })
    .from(gatewayLeases)
    .innerJoin(proxyAccounts, eq(proxyAccounts.id, gatewayLeases.proxyAccountId))
    .where(and(eq(proxyAccounts.userId, userId), isNull(gatewayLeases.settledAt)));
  const entries = BigInt(e!.v);
  const credits = u?.c ?? 0n;
  const usage = u?.t ?? 0n;
  const leased = BigInt(l!.v);
  return { entries, credits, leased, usage, ok: entries === credits + leased + usage };
}
