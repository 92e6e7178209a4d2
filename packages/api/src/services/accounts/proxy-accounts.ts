/**
 * A user's proxy accounts: the main one, those that came in batches and sub-accounts they made,
 * each with its own credentials, optional cap and usage. Sub-accounts spend the user's balance but
 * never beyond their cap, daily or monthly limit (caps.ts), until they expire, with at most
 * maxConnections open at once across the fleet (connection-limits.ts); a disabled or rotated account is refused by the gateway at its
 * next credential check (seconds), which closes its open tunnels.
 */
import { and, asc, count, eq } from 'drizzle-orm';
import { newProxyPassword, newProxyUserId, type SecretBox } from '@proxyhub/auth';
import { DomainError, hundredthsGbToBytes, MAX_SUB_ACCOUNTS, type CreateProxyAccountInput, type UpdateProxyAccountInput } from '@proxyhub/core';
import { proxyAccounts, users, type DbOrTx } from '@proxyhub/db';
import { periodUsed } from '../money/caps';

export const PROXY_ACCOUNT_NOT_FOUND = 'Proxy account not found';
export const TOO_MANY_SUB_ACCOUNTS = `At most ${MAX_SUB_ACCOUNTS} sub-accounts per user`;
export const MAIN_ACCOUNT_FIXED = 'The main account cannot be renamed, capped or disabled; make a sub-account instead';

type Row = typeof proxyAccounts.$inferSelect;

function view(secrets: SecretBox, a: Row) {
  return {
    proxyUserId: a.proxyUserId,
    proxyPassword: secrets.decrypt(a.proxyPasswordEnc),
    name: a.name,
    kind: a.kind,
    capBytes: a.capBytes === null ? null : a.capBytes.toString(),
    usedBytes: a.usedBytes.toString(),
    dailyLimitBytes: a.dailyLimitBytes === null ? null : a.dailyLimitBytes.toString(),
    monthlyLimitBytes: a.monthlyLimitBytes === null ? null : a.monthlyLimitBytes.toString(),
    /** Used this UTC day and month (0 when the last use was on an earlier one). */
    dayUsedBytes: periodUsed(a).day.toString(),
    monthUsedBytes: periodUsed(a).month.toString(),
    expiresAt: a.expiresAt === null ? null : a.expiresAt.toISOString(),
    maxConnections: a.maxConnections,
    disabled: a.disabledAt !== null,
    createdAt: a.createdAt.toISOString(),
  };
}
export type ProxyAccountView = ReturnType<typeof view>;

export async function listProxyAccounts(db: DbOrTx, secrets: SecretBox, userId: string) {
  const rows = await db
    .select()
    .from(proxyAccounts)
    .where(eq(proxyAccounts.userId, userId))
    .orderBy(asc(proxyAccounts.createdAt), asc(proxyAccounts.proxyUserId));
  // Main first, then batch accounts and sub-accounts in the order they came.
  const order = { main: 0, batch: 1, sub: 2 } as const;
  return { accounts: rows.sort((a, b) => order[a.kind] - order[b.kind]).map((a) => view(secrets, a)) };
}

const capBytesOf = (gb: number | null) => (gb === null ? null : hundredthsGbToBytes(gb));

/** The limits given, as columns (absent: unchanged). */
function limitColumns(input: Pick<CreateProxyAccountInput, 'capGB' | 'expiresAt' | 'dailyLimitGB' | 'monthlyLimitGB' | 'maxConnections'>): Partial<Row> {
  const set: Partial<Row> = {};
  if (input.capGB !== undefined) set.capBytes = capBytesOf(input.capGB);
  if (input.dailyLimitGB !== undefined) set.dailyLimitBytes = capBytesOf(input.dailyLimitGB);
  if (input.monthlyLimitGB !== undefined) set.monthlyLimitBytes = capBytesOf(input.monthlyLimitGB);
  if (input.expiresAt !== undefined) set.expiresAt = input.expiresAt === null ? null : new Date(input.expiresAt);
  if (input.maxConnections !== undefined) set.maxConnections = input.maxConnections;
  return set;
}

export async function createSubAccount(tx: DbOrTx, secrets: SecretBox, userId: string, input: CreateProxyAccountInput) {
  // The user's row is the lock that makes "at most 100" hold under concurrent creates.
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
  const [n] = await tx
    .select({ n: count() })
    .from(proxyAccounts)
    .where(and(eq(proxyAccounts.userId, userId), eq(proxyAccounts.kind, 'sub')));
  if (Number(n?.n ?? 0) >= MAX_SUB_ACCOUNTS) throw new DomainError('CONFLICT', TOO_MANY_SUB_ACCOUNTS);
  const [row] = await tx
    .insert(proxyAccounts)
    .values({
      kind: 'sub',
      name: input.name,
      proxyUserId: newProxyUserId(),
      proxyPasswordEnc: secrets.encrypt(newProxyPassword()),
      userId,
      usageType: 'normal_proxy',
      ...limitColumns(input),
    })
    .returning();
  return { account: view(secrets, row!) };
}

async function ownAccount(tx: DbOrTx, userId: string, proxyUserId: string): Promise<Row> {
  const [row] = await tx
    .select()
    .from(proxyAccounts)
    .where(and(eq(proxyAccounts.userId, userId), eq(proxyAccounts.proxyUserId, proxyUserId.toLowerCase())))
    .for('update');
  if (!row) throw new DomainError('NOT_FOUND', PROXY_ACCOUNT_NOT_FOUND);
  return row;
}

export async function updateProxyAccount(tx: DbOrTx, secrets: SecretBox, userId: string, input: UpdateProxyAccountInput) {
  const a = await ownAccount(tx, userId, input.proxyUserId);
  if (a.kind === 'main') throw new DomainError('BAD_REQUEST', MAIN_ACCOUNT_FIXED);
  const set: Partial<Row> = {};
  if (input.name !== undefined) set.name = input.name;
  Object.assign(set, limitColumns(input));
  if (input.disabled !== undefined) set.disabledAt = input.disabled ? (a.disabledAt ?? new Date()) : null;
  const [row] = await tx.update(proxyAccounts).set(set).where(eq(proxyAccounts.id, a.id)).returning();
  return { account: view(secrets, row!) };
}

/** A new password for one of the user's accounts; the old one is refused from the gateway's next check. */
export async function rotateAccountPassword(tx: DbOrTx, secrets: SecretBox, userId: string, proxyUserId: string) {
  const a = await ownAccount(tx, userId, proxyUserId);
  const proxyPassword = newProxyPassword();
  await tx
    .update(proxyAccounts)
    .set({ proxyPasswordEnc: secrets.encrypt(proxyPassword) })
    .where(eq(proxyAccounts.id, a.id));
  return { proxyPassword };
}
