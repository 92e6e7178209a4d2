/**
 * What a signed-in user changes about their own account: the password, the name, and deleting the
 * account. Threats: a stolen session (or API key) changing the password or deleting the account
 * needs the current password, and wrong guesses are limited (limits.ts); a password change ends
 * every other session, so whoever held one is out. Deleting keeps an anonymised users row: the
 * ledger (credit_entries, usage, leases) points at it and must still add up.
 */
import { and, eq } from 'drizzle-orm';
import { deleteUserSessions, hashPassword, newApiKey, newProxyPassword, verifyPassword, type SecretBox } from '@proxyhub/auth';
import { DomainError, type ChangePasswordInput, type DeleteAccountInput, type UpdateAccountInput } from '@proxyhub/core';
import {
  apiKeys,
  ipAllowlistEntries,
  oneTimeTokens,
  pendingLogins,
  proxyAccounts,
  recoveryCodes,
  telegramChats,
  telegramLinkCodes,
  users,
  type DbOrTx,
} from '@proxyhub/db';
import { inBackground, type ApiDeps } from '../../deps';
import { mailTemplates } from '../../mail';
import { apiKeyColumns, getUserView } from './users';

export const WRONG_CURRENT_PASSWORD = 'Current password is incorrect';
export const SAME_PASSWORD = 'The new password must be different from the current one';
export const NO_PASSWORD_YET =
  'Your account signs in with Google and has no password yet. To set one, use "Forgot password?" on the sign-in page: the link goes to your email.';
export const WRONG_PASSWORD = 'Password is incorrect';
export const CONFIRM_WITH_EMAIL = 'Type the email address of your account to confirm';
export const PASSWORD_CHANGED = 'Password changed. Your other sessions were signed out.';
export const ACCOUNT_DELETED = 'Your account was deleted.';

/** The domain deleted accounts' addresses live under: `.invalid` never routes (RFC 2606). */
export const DELETED_EMAIL_DOMAIN = 'deleted.invalid';

async function userRow(db: DbOrTx, userId: string) {
  const [u] = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  if (!u) throw new DomainError('UNAUTHORIZED', 'Not authenticated');
  return u;
}

/**
 * A new password (registration rules) for a user who proves the current one. Every other session
 * of the user ends; `keepSessionId` (the caller's own, null through the API key) stays.
 */
export async function changePassword(deps: ApiDeps, input: ChangePasswordInput & { userId: string; keepSessionId: string | null }) {
  const u = await userRow(deps.db, input.userId);
  if (!u.passwordHash) throw new DomainError('BAD_REQUEST', NO_PASSWORD_YET);
  if (!(await verifyPassword(u.passwordHash, input.currentPassword))) throw new DomainError('BAD_REQUEST', WRONG_CURRENT_PASSWORD);
  if (input.currentPassword === input.newPassword) throw new DomainError('BAD_REQUEST', SAME_PASSWORD);
  const passwordHash = await hashPassword(input.newPassword);
  // Only over the hash that was checked: of two changes at once, the second must prove the new one.
  const [changed] = await deps.db
    .update(users)
    .set({ passwordHash })
    .where(and(eq(users.id, u.id), eq(users.passwordHash, u.passwordHash)))
    .returning({ id: users.id });
  if (!changed) throw new DomainError('CONFLICT', 'Your password was changed meanwhile. Please try again.');
  await deps.sessions.user.endOthers(u.id, input.keepSessionId);
  inBackground(deps, 'password changed mail', () =>
    deps.mailer.send(mailTemplates.passwordChanged(u, new URL('/login', deps.config.publicUrl).toString(), true)),
  );
  return { message: PASSWORD_CHANGED };
}

/** The name shown in the app, with the registration rules (the schema checked them). */
/** Settings: what is given changes (the name, the language of mails and bot replies). */
export async function updateAccount(tx: DbOrTx, secrets: SecretBox, userId: string, input: UpdateAccountInput) {
  const set = { ...(input.name !== undefined ? { name: input.name } : {}), ...(input.locale !== undefined ? { locale: input.locale } : {}) };
  if (Object.keys(set).length) await tx.update(users).set(set).where(eq(users.id, userId));
  return { user: await getUserView(tx, secrets, userId) };
}

/**
 * Deletes the account as far as the ledger allows: the row stays, anonymised (placeholder email, so
 * the address is free for a new registration; no name, password, Google link, usable API key or
 * second factor), its sessions, tokens, recovery codes and allow-list are deleted, and every proxy
 * account is disabled with its password replaced, so gateways refuse it and close its tunnels at
 * their next check (seconds). Credit entries, usage and leases are kept and still add up.
 * Proof: the password, or for a Google-only account (no password) the account's email typed.
 */
export async function deleteAccount(deps: ApiDeps, input: DeleteAccountInput & { userId: string }) {
  const u = await userRow(deps.db, input.userId);
  if (u.passwordHash) {
    if (!input.password) throw new DomainError('BAD_REQUEST', 'Password is required');
    if (!(await verifyPassword(u.passwordHash, input.password))) throw new DomainError('BAD_REQUEST', WRONG_PASSWORD);
  } else if (!input.email || input.email !== u.email) {
    throw new DomainError('BAD_REQUEST', CONFIRM_WITH_EMAIL);
  }
  const now = new Date();
  await deps.db.transaction(async (tx) => {
    // PGlite is one connection: everything below goes through tx.
    await tx
      .update(users)
      .set({
        email: `deleted-${u.id}@${DELETED_EMAIL_DOMAIN}`,
        name: '',
        passwordHash: null,
        googleSub: null,
        // The column cannot be empty: a fresh key nobody ever sees.
        ...apiKeyColumns(deps.secrets, newApiKey()),
        totpSecretEnc: null,
        totpEnabledAt: null,
        totpLastStep: null,
        lowBalanceBytes: null,
        allowlistPasswordless: false,
        disabledAt: u.disabledAt ?? now,
        deletedAt: now,
      })
      .where(eq(users.id, u.id));
    await deleteUserSessions(tx, u.id);
    await tx.delete(oneTimeTokens).where(eq(oneTimeTokens.userId, u.id));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, u.id));
    await tx.delete(pendingLogins).where(eq(pendingLogins.userId, u.id));
    await tx.delete(ipAllowlistEntries).where(eq(ipAllowlistEntries.userId, u.id));
    await tx.delete(apiKeys).where(eq(apiKeys.userId, u.id));
    await tx.delete(telegramChats).where(eq(telegramChats.userId, u.id));
    await tx.delete(telegramLinkCodes).where(eq(telegramLinkCodes.userId, u.id));
    const accounts = await tx.select({ id: proxyAccounts.id, disabledAt: proxyAccounts.disabledAt }).from(proxyAccounts).where(eq(proxyAccounts.userId, u.id));
    for (const a of accounts) {
      await tx
        .update(proxyAccounts)
        .set({ disabledAt: a.disabledAt ?? now, proxyPasswordEnc: deps.secrets.encrypt(newProxyPassword()) })
        .where(eq(proxyAccounts.id, a.id));
    }
  });
  deps.logger.info({ userId: u.id }, 'account deleted by its owner');
  return { message: ACCOUNT_DELETED };
}
