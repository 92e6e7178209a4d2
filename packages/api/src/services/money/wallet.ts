/**
 * The wallet: the one place that knows whose credits an account spends, writes the credit ledger,
 * sums what gateways hold in open leases and says what a user has left.
 *
 * A wallet is a user's (users.credits_bytes), or, for the accounts of a batch not yet associated
 * with a user, the batch's own allowance (batches.credits_bytes). Every change of a balance that is
 * not usage is an append-only ledger entry written in the same transaction; `sourceKey` is unique,
 * so a repeat of the same source (a code, a payment, a batch) cannot credit twice even under
 * concurrent calls. Bytes a gateway leased are in no balance until reported or returned, so:
 *   sum(credit_entries) = credits_bytes + open leases (granted - used) + total_usage_bytes
 * per wallet and in total (docs/design.md, "The ledger invariant"; `ledger.ts` checks it).
 *
 * Remaining, the one number every reader shows (session, admin list, redeem answer, gateway
 * check): the wallet's credits plus the bytes held in open leases on the accounts spending it. Those
 * bytes are still the user's: what a gateway does not use goes back to the wallet.
 */
import { and, asc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { QueryBuilder, type SelectedFields } from 'drizzle-orm/pg-core';
import { DomainError, type UsageType } from '@proxyhub/core';
import { anyOf, arrayOf } from '../lib/any-of';
import { batches, creditEntries, gatewayLeases, proxyAccounts, users, type CREDIT_KINDS, type DbOrTx } from '@proxyhub/db';

export type Wallet = { userId: string } | { batchId: string };
export type CreditKind = (typeof CREDIT_KINDS)[number];

export function walletKey(w: Wallet): string {
  return 'userId' in w ? `user:${w.userId}` : `batch:${w.batchId}`;
}

function walletRow(w: Wallet) {
  return 'userId' in w ? { table: users, id: w.userId } : { table: batches, id: w.batchId };
}

// --- Whose wallet an account spends -------------------------------------------------------------

export interface AccountWallet {
  proxyAccountId: string;
  usageType: UsageType;
  wallet: Wallet;
  /** The account or its owner is disabled. */
  disabled: boolean;
  /** Its owner is suspended (disabled by an admin, or deleted): `disabled` too. */
  suspended: boolean;
  /** The associated batch whose cap bounds this account's spending (batches.cap_bytes), if any. */
  capBatchId: string | null;
  /** From this time the account is refused (proxy_accounts.expires_at). */
  expiresAt: Date | null;
  /** Concurrent connections across the fleet (null: no limit). */
  maxConnections: number | null;
  /** Its owner is exempt from the target policy. */
  targetPolicyExempt: boolean;
}

const accountWalletColumns = {
  proxyAccountId: proxyAccounts.id,
  usageType: proxyAccounts.usageType,
  accountUserId: proxyAccounts.userId,
  batchId: proxyAccounts.batchId,
  batchUserId: batches.associatedUserId,
  accountDisabledAt: proxyAccounts.disabledAt,
  userDisabledAt: users.disabledAt,
  expiresAt: proxyAccounts.expiresAt,
  maxConnections: proxyAccounts.maxConnections,
  targetPolicyExempt: users.targetPolicyExempt,
};

export interface AccountWalletRow {
  proxyAccountId: string;
  usageType: UsageType;
  accountUserId: string | null;
  batchId: string | null;
  batchUserId: string | null;
  accountDisabledAt: Date | null;
  userDisabledAt: Date | null;
  expiresAt: Date | null;
  maxConnections: number | null;
  targetPolicyExempt: boolean | null;
}

/**
 * Proxy accounts joined to their batch and to the user whose credits they spend, selecting what
 * `toAccountWallet` reads plus `extra` columns (of these tables, or of a table the caller joins).
 */
export function selectAccountWallets<T extends SelectedFields>(db: DbOrTx, extra: T) {
  return db
    .select({ ...accountWalletColumns, ...extra })
    .from(proxyAccounts)
    .leftJoin(batches, eq(batches.id, proxyAccounts.batchId))
    .leftJoin(users, eq(users.id, sql`coalesce(${proxyAccounts.userId}, ${batches.associatedUserId})`));
}

/** A batch's allowance is the wallet until the batch is associated; then the owner's wallet is. */
export function toAccountWallet(r: AccountWalletRow): AccountWallet {
  const userId = r.accountUserId ?? r.batchUserId;
  const wallet: Wallet = r.batchId && !r.batchUserId ? { batchId: r.batchId } : userId ? { userId } : { batchId: r.batchId! };
  return {
    proxyAccountId: r.proxyAccountId,
    usageType: r.usageType,
    wallet,
    disabled: r.accountDisabledAt !== null || r.userDisabledAt !== null,
    suspended: r.userDisabledAt !== null,
    capBatchId: r.batchId && r.batchUserId ? r.batchId : null,
    expiresAt: r.expiresAt,
    maxConnections: r.maxConnections,
    targetPolicyExempt: r.targetPolicyExempt === true,
  };
}

export async function findAccountWallet(db: DbOrTx, proxyAccountId: string): Promise<AccountWallet | null> {
  return (await findAccountWallets(db, [proxyAccountId])).get(proxyAccountId) ?? null;
}

/** Several accounts' wallets in one query, by proxy account id (unknown ids are absent). */
export async function findAccountWallets(db: DbOrTx, proxyAccountIds: readonly string[]): Promise<Map<string, AccountWallet>> {
  if (!proxyAccountIds.length) return new Map();
  const rows = await selectAccountWallets(db, {}).where(anyOf(proxyAccounts.id, proxyAccountIds));
  return new Map(rows.map((r) => [r.proxyAccountId, toAccountWallet(r)]));
}

// --- Balances and the ledger --------------------------------------------------------------------

/** The wallet's credits, not counting open leases (0 for an unknown wallet); `lock` holds its row for the rest of the transaction. */
export async function walletCredits(tx: DbOrTx, w: Wallet, opts: { lock: boolean }): Promise<bigint> {
  return (await walletsCredits(tx, [w], opts)).get(walletKey(w)) ?? 0n;
}

/** The ids of the user wallets and of the batch wallets among `wallets`, each sorted and once. */
function walletIds(wallets: Iterable<Wallet>): { userIds: string[]; batchIds: string[] } {
  const userIds = new Set<string>();
  const batchIds = new Set<string>();
  for (const w of wallets) {
    if ('userId' in w) userIds.add(w.userId);
    else batchIds.add(w.batchId);
  }
  return { userIds: [...userIds].sort(), batchIds: [...batchIds].sort() };
}

/**
 * Several wallets' credits by walletKey, in two queries at most (unknown wallets are absent). With
 * `lock` the rows are locked in one order everywhere (users, then batches, each by id), so
 * reservations for overlapping sets of wallets queue instead of deadlocking.
 */
export async function walletsCredits(tx: DbOrTx, wallets: Iterable<Wallet>, opts: { lock: boolean }): Promise<Map<string, bigint>> {
  const { userIds, batchIds } = walletIds(wallets);
  const out = new Map<string, bigint>();
  for (const [table, ids, key] of [
    [users, userIds, (id: string) => walletKey({ userId: id })],
    [batches, batchIds, (id: string) => walletKey({ batchId: id })],
  ] as const) {
    if (!ids.length) continue;
    const query = tx.select({ id: table.id, credits: table.creditsBytes }).from(table).where(anyOf(table.id, ids)).orderBy(asc(table.id));
    for (const r of opts.lock ? await query.for('update') : await query) out.set(key(r.id), r.credits);
  }
  return out;
}

/**
 * The accounts holding open leases on each wallet, by walletKey (absent: none), in two queries at
 * most. A user's wallet counts the user's own accounts (main and sub-accounts), a batch's its accounts.
 */
export async function walletLeaseHolders(db: DbOrTx, wallets: Iterable<Wallet>): Promise<Map<string, Set<string>>> {
  const { userIds, batchIds } = walletIds(wallets);
  const out = new Map<string, Set<string>>();
  for (const [id, holders] of await leaseHoldersBy(db, proxyAccounts.userId, userIds)) out.set(walletKey({ userId: id }), new Set(holders));
  for (const [id, holders] of await leaseHoldersBy(db, proxyAccounts.batchId, batchIds)) out.set(walletKey({ batchId: id }), new Set(holders));
  return out;
}

/** Moves a wallet by lease traffic (bytes into or back from leases, usage): no ledger entry, in the caller's transaction. */
export async function adjustWallet(tx: DbOrTx, w: Wallet, delta: { credits: bigint; usage: bigint }): Promise<void> {
  await adjustWallets(tx, [{ wallet: w, ...delta }]);
}

export interface WalletDelta {
  wallet: Wallet;
  credits: bigint;
  usage: bigint;
}

/** Moves several wallets by lease traffic: one statement per kind of wallet, whatever their number. */
export async function adjustWallets(tx: DbOrTx, deltas: readonly WalletDelta[]): Promise<void> {
  const moved = deltas.filter((d) => d.credits !== 0n || d.usage !== 0n);
  for (const table of [users, batches]) {
    const rows = moved.map((d) => ({ d, row: walletRow(d.wallet) })).filter((r) => r.row.table === table);
    if (!rows.length) continue;
    const [ids, credits, usage] = [rows.map((r) => r.row.id), rows.map((r) => r.d.credits), rows.map((r) => r.d.usage)];
    await tx.execute(
      sql`update ${table} set ${sql.identifier(table.creditsBytes.name)} = ${table.creditsBytes} + d.credits,
            ${sql.identifier(table.totalUsageBytes.name)} = ${table.totalUsageBytes} + d.usage
          from unnest(${arrayOf(table.id, ids)}, ${arrayOf(table.creditsBytes, credits)}, ${arrayOf(table.totalUsageBytes, usage)}) as d(id, credits, usage)
          where ${table.id} = d.id`,
    );
  }
}

export interface CreditInput {
  wallet: Wallet;
  /** Positive credits, negative debits (reversals, moves out of a batch). */
  bytes: bigint;
  kind: CreditKind;
  /** Unique per source: `code:<id>`, `payment:<id>`, ... */
  sourceKey: string;
  note?: string;
}

async function insertEntry(tx: DbOrTx, input: CreditInput): Promise<boolean> {
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
  return inserted.length > 0;
}

/**
 * Writes the ledger entry and moves the wallet's credits. Returns the new credits, or null when this
 * source was already credited (the unique source key refused the entry; nothing changed).
 * Must run inside a transaction. A debit that would take the credits below zero is refused.
 */
export async function credit(tx: DbOrTx, input: CreditInput): Promise<bigint | null> {
  if (!(await insertEntry(tx, input))) return null;
  const { table, id } = walletRow(input.wallet);
  const [row] = await tx
    .update(table)
    .set({ creditsBytes: sql`${table.creditsBytes} + ${input.bytes}` })
    .where(and(eq(table.id, id), sql`${table.creditsBytes} + ${input.bytes} >= 0`))
    .returning({ credits: table.creditsBytes });
  if (!row) throw new DomainError('CONFLICT', 'The balance is too low for this change');
  return row.credits;
}

/**
 * Moves the claim on bytes held in open leases from one wallet to another (a batch's accounts
 * joining a user): two entries, and no balance moves, since the bytes sit in the leases.
 */
export async function moveLeasedClaim(
  tx: DbOrTx,
  input: { from: Wallet; to: Wallet; bytes: bigint; kind: CreditKind; sourceKeys: { out: string; in: string }; note: string },
): Promise<void> {
  if (input.bytes <= 0n) return;
  const { from, to, bytes, kind, note } = input;
  await insertEntry(tx, { wallet: from, bytes: -bytes, kind, sourceKey: input.sourceKeys.out, note });
  await insertEntry(tx, { wallet: to, bytes, kind, sourceKey: input.sourceKeys.in, note });
}

// --- Open leases and remaining ------------------------------------------------------------------

const qb = new QueryBuilder();

/** What open leases hold: granted - used, summed (numeric). */
const heldSum = () => sql`coalesce(sum(${gatewayLeases.grantedBytes} - ${gatewayLeases.usedBytes}), 0)`;

/** Open leases on the accounts `accounts` selects (a condition on proxy_accounts). */
const openLeasesOn = (accounts?: SQL) => and(isNull(gatewayLeases.settledAt), accounts);
const leaseAccount = eq(proxyAccounts.id, gatewayLeases.proxyAccountId);

/** Sum of granted - used over open leases on the accounts `accounts` selects: a scalar subquery (numeric). */
function leaseSum(accounts?: SQL): SQL {
  const sum = qb.select({ v: heldSum() }).from(gatewayLeases).innerJoin(proxyAccounts, leaseAccount).where(openLeasesOn(accounts));
  return sql`(${sum})`;
}

/** Bytes as Postgres sums them (numeric): read as text, exact at any size. */
const asBytes = (expr: SQL) => sql`(${expr})::text`.mapWith(BigInt);

/**
 * Bytes gateways hold in open leases (granted, not yet reported as used) on the accounts `accounts`
 * selects (a condition on proxy_accounts, which may refer to the outer query's row), or on all.
 */
export function openLeaseBytes(accounts?: SQL): SQL<bigint> {
  return asBytes(leaseSum(accounts));
}

/** The accounts spending a user's wallet (their own and those of batches they associated). */
const usersAccounts = () => eq(proxyAccounts.userId, users.id);
/** The accounts of a batch: spending its allowance before association, its buyer's within the cap after. */
const batchAccounts = () => eq(proxyAccounts.batchId, batches.id);

/** Remaining: the wallet's credits plus what open leases hold on the accounts spending it. */
const remaining = (credits: typeof users.creditsBytes | typeof batches.creditsBytes, accounts: SQL | undefined) =>
  asBytes(sql`${credits} + ${leaseSum(accounts)}`);

/** Remaining of the user on the outer query's `users` row, in bytes. */
export function userRemaining(): SQL<bigint> {
  return remaining(users.creditsBytes, usersAccounts());
}

/** Remaining of a wallet, in bytes (0 for an unknown one). */
export async function walletRemaining(db: DbOrTx, w: Wallet): Promise<bigint> {
  return (await walletsRemaining(db, [w])).get(walletKey(w)) ?? 0n;
}

/** Remaining of several wallets by walletKey, in two queries at most (unknown wallets are absent). */
export async function walletsRemaining(db: DbOrTx, wallets: Iterable<Wallet>): Promise<Map<string, bigint>> {
  const { userIds, batchIds } = walletIds(wallets);
  const out = new Map<string, bigint>();
  if (userIds.length) {
    for (const r of await db.select({ id: users.id, v: userRemaining() }).from(users).where(anyOf(users.id, userIds)))
      out.set(walletKey({ userId: r.id }), r.v);
  }
  if (batchIds.length) {
    const rows = await db
      .select({ id: batches.id, v: remaining(batches.creditsBytes, and(batchAccounts(), isNull(proxyAccounts.userId))) })
      .from(batches)
      .where(anyOf(batches.id, batchIds));
    for (const r of rows) out.set(walletKey({ batchId: r.id }), r.v);
  }
  return out;
}

/** Bytes held in open leases on the accounts of a batch (associated or not). */
export async function batchLeasedBytes(db: DbOrTx, batchId: string): Promise<bigint> {
  return (await openLeaseBytesBy(db, proxyAccounts.batchId, [batchId])).get(batchId) ?? 0n;
}

/** Accounts grouped by one of their columns: each account, each batch's, each user's own. */
type AccountGroup = typeof proxyAccounts.id | typeof proxyAccounts.batchId | typeof proxyAccounts.userId;

/** `value`, an aggregate over the open leases of each group of accounts among `ids`, in one query; a group without open leases is absent. */
async function openLeasesBy<T>(db: DbOrTx, by: AccountGroup, ids: readonly string[], value: SQL<T>): Promise<Map<string, T>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: by, v: value })
    .from(gatewayLeases)
    .innerJoin(proxyAccounts, leaseAccount)
    .where(openLeasesOn(anyOf(by, ids)))
    .groupBy(by);
  return new Map(rows.map((r) => [r.id!, r.v]));
}

/** Bytes held in open leases grouped by `by` (each account, or each batch of accounts), for the ids given. */
export function openLeaseBytesBy(db: DbOrTx, by: AccountGroup, ids: readonly string[]): Promise<Map<string, bigint>> {
  return openLeasesBy(db, by, ids, asBytes(heldSum()));
}

/** The accounts holding open leases, grouped by `by`, for the ids given. */
function leaseHoldersBy(db: DbOrTx, by: AccountGroup, ids: readonly string[]): Promise<Map<string, string[]>> {
  return openLeasesBy(db, by, ids, sql<string[]>`array_agg(distinct ${gatewayLeases.proxyAccountId})`);
}

/** Bytes held in open leases on the accounts of the outer query's `users` row. */
export const userLeased = (): SQL<bigint> => openLeaseBytes(usersAccounts());

/** Bytes held in open leases on a user's accounts. */
export async function userLeasedBytes(db: DbOrTx, userId: string): Promise<bigint> {
  const [row] = await db
    .select({ v: openLeaseBytes(usersAccounts()) })
    .from(users)
    .where(eq(users.id, userId));
  return row?.v ?? 0n;
}
