import { and, eq, sql } from 'drizzle-orm';
import { userPlanBytes } from '../money/plan-buckets';
import { newApiKey, newProxyPassword, newProxyUserId, type SecretBox, type UserAccount } from '@proxyhub/auth';
import { proxyAccounts, users, type DbOrTx } from '@proxyhub/db';
import { DEFAULT_LOCALE, isLocale, type Locale } from '@proxyhub/core/i18n';
import { userRemaining } from '../money/wallet';
import { setDefaultKey } from './api-keys';

/**
 * Creates a user with everything an account needs: an API key and the main proxy account
 * (proxy user id + proxy password), credentials encrypted at rest. One transaction.
 */
export async function createAccount(
  tx: DbOrTx,
  secrets: SecretBox,
  input: { email: string; name: string; passwordHash: string | null; googleSub?: string | null; emailVerified: boolean; locale?: Locale },
): Promise<UserAccount> {
  const apiKey = newApiKey();
  const [user] = await tx
    .insert(users)
    .values({
      email: input.email,
      name: input.name,
      passwordHash: input.passwordHash,
      googleSub: input.googleSub ?? null,
      emailVerifiedAt: input.emailVerified ? new Date() : null,
      locale: input.locale ?? DEFAULT_LOCALE,
      ...apiKeyColumns(secrets, apiKey),
    })
    .returning();
  await setDefaultKey(tx, secrets, user!.id, apiKey);
  await tx.insert(proxyAccounts).values({
    kind: 'main',
    name: 'Main',
    proxyUserId: newProxyUserId(),
    proxyPasswordEnc: secrets.encrypt(newProxyPassword()),
    userId: user!.id,
    usageType: 'normal_proxy',
  });
  return user!;
}

/** An API key as stored: looked up by keyed hash, shown again from its ciphertext. */
export function apiKeyColumns(secrets: SecretBox, apiKey: string) {
  return { apiKeyHash: secrets.lookupHash(apiKey), apiKeyEnc: secrets.encrypt(apiKey) };
}

/**
 * Replaces a leaked Default API key (the account's other keys are untouched). The old key is
 * refused by this server's next request and by the others within the read cache's second.
 */
export async function rotateApiKey(db: DbOrTx, secrets: SecretBox, userId: string): Promise<{ apiKey: string }> {
  const apiKey = newApiKey();
  await db.transaction(async (tx) => {
    await tx.update(users).set(apiKeyColumns(secrets, apiKey)).where(eq(users.id, userId));
    await setDefaultKey(tx, secrets, userId, apiKey);
  });
  return { apiKey };
}

/**
 * Replaces the password of the user's main proxy account (batch accounts keep theirs). Gateways
 * re-check the credentials of open connections every few seconds and close those on the old one.
 */
export async function rotateProxyPassword(tx: DbOrTx, secrets: SecretBox, userId: string): Promise<{ proxyPassword: string }> {
  const proxyPassword = newProxyPassword();
  await tx
    .update(proxyAccounts)
    .set({ proxyPasswordEnc: secrets.encrypt(proxyPassword) })
    .where(and(eq(proxyAccounts.userId, userId), eq(proxyAccounts.kind, 'main')));
  return { proxyPassword };
}

export interface UserView {
  id: string;
  name: string;
  email: string;
  /** Remaining, in bytes (the spec's name): the wallet plus what gateways hold in open leases. */
  credits: bigint;
  /** Of `credits`, the bytes of plan allowances (they expire at `planEndsAt`, the soonest bucket's end); the rest is pay-as-you-go. */
  planBytes: bigint;
  planEndsAt: Date | null;
  total_usage_bytes: bigint;
  proxyUserId: string;
  proxyPassword: string;
  apiKey: string;
  emailVerified: boolean;
  authType: 'google' | 'email';
  /** Has signed in before the current session ("Welcome back" rather than a first-visit greeting). */
  returning: boolean;
  createdAt: Date;
  /** The code of the user's referral link (/login?ref=CODE). */
  referralCode: string;
  /** The language of the user's mails and bot replies. */
  locale: Locale;
}

function userViewQuery(db: DbOrTx) {
  return db
    .select({
      user: users,
      account: proxyAccounts,
      remaining: userRemaining(),
    })
    .from(users)
    .innerJoin(proxyAccounts, and(eq(proxyAccounts.userId, users.id), eq(proxyAccounts.kind, 'main')))
    .where(eq(users.id, sql.placeholder('userId')))
    .orderBy(proxyAccounts.createdAt)
    .limit(1)
    .prepare('user_view');
}
// The session call runs on every page load: its SQL is built once per database handle.
const userViewQueries = new WeakMap<DbOrTx, ReturnType<typeof userViewQuery>>();

/** What the session call shows the user about themself. */
export async function getUserView(db: DbOrTx, secrets: SecretBox, userId: string): Promise<UserView> {
  let query = userViewQueries.get(db);
  if (!query) userViewQueries.set(db, (query = userViewQuery(db)));
  const [row] = await query.execute({ userId });
  if (!row) throw new Error(`user ${userId} has no proxy account`);
  const { user, account, remaining } = row;
  const plan = await userPlanBytes(db, userId);
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    credits: remaining,
    planBytes: plan.planBytes,
    planEndsAt: plan.planEndsAt,
    total_usage_bytes: user.totalUsageBytes,
    proxyUserId: account.proxyUserId,
    proxyPassword: secrets.decrypt(account.proxyPasswordEnc),
    apiKey: secrets.decrypt(user.apiKeyEnc),
    emailVerified: user.emailVerifiedAt !== null,
    authType: user.passwordHash === null && user.googleSub ? 'google' : 'email',
    returning: user.signInCount > 1,
    createdAt: user.createdAt,
    referralCode: user.referralCode,
    locale: isLocale(user.locale) ? user.locale : DEFAULT_LOCALE,
  };
}
