/**
 * Account flows. Threats handled here: account enumeration (register, login, resend and forgot
 * answer the same whether or not the email exists, and do the same work before answering: register
 * one argon2id hash and no database call, login one lookup and one argon2id verify (against a dummy
 * hash when there is no account), resend and forgot no database call; whatever depends on the
 * account happens after the answer), token replay (single-use hashed tokens), session fixation (a
 * new session on every login; a reset ends every session). Rate limits: `limits.ts`.
 * Nothing here sees the request: a sign-in returns who signed in and the procedure starts the session.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { hashPassword, verifyPassword, type GoogleProfile, type UserAccount } from '@proxyhub/auth';
import { ACCOUNT_DISABLED_MESSAGE, DomainError, EMAIL_VERIFICATION_TTL_MS, PASSWORD_RESET_TTL_MS, type LoginInput, type RegisterInput } from '@proxyhub/core';
import type { Locale } from '@proxyhub/core/i18n';
import { users } from '@proxyhub/db';
import { inBackground, type ApiDeps } from '../../deps';
import { mailTemplates } from '../../mail';
import { createAccount, getUserView } from './users';
import { consumeToken, issueToken } from './one-time-tokens';
import { isUniqueViolation } from '../lib/db-errors';
import { attachReferrer, findReferrer, recordNetwork } from '../money/referrals';

const link = (deps: ApiDeps, path: string, token?: string) => {
  const url = new URL(path, deps.config.publicUrl);
  if (token) url.searchParams.set('token', token);
  return url.toString();
};

export const REGISTER_MESSAGE = 'Registration successful. Please check your email to verify your account.';
export const FORGOT_MESSAGE = 'If an account exists for that email, a password reset link has been sent.';
export const RESEND_MESSAGE = 'If that account is waiting for verification, a new link has been sent.';

async function sendVerification(deps: ApiDeps, user: Pick<UserAccount, 'id' | 'email' | 'locale'>) {
  const token = await issueToken(deps.db, { userId: user.id, purpose: 'email_verification', ttlMs: EMAIL_VERIFICATION_TTL_MS, replaceEarlier: false });
  await deps.mailer.send(mailTemplates.verifyEmail(user, link(deps, '/verify-email', token)));
}

/** How long after the answer the per-account work may start at the latest, unless configured. */
export const AFTER_ANSWER_SPREAD_MS = 2000;

/**
 * Work for one email address after the answer has gone out, in the order the requests came (a
 * registration is complete before a password reset asked for right after it looks the address up).
 * It starts at a random moment within the spread: the work a known email causes differs from a new
 * one's (a mail and a token against a new account, or nothing), and run at once it would slow the
 * attacker's next request, which can be timed; spread out, every request runs beside the mixed
 * work of many earlier ones.
 */
const afterAnswer = (deps: ApiDeps, email: string, what: string, task: () => Promise<unknown>) =>
  inBackground(deps, what, task, { after: email, spreadMs: deps.config.afterAnswerSpreadMs ?? AFTER_ANSWER_SPREAD_MS });

async function findByEmail(deps: ApiDeps, email: string) {
  const [row] = await deps.db.select().from(users).where(eq(users.email, email)).limit(1);
  return row;
}

/** Where a new account comes from: the client's address (the referral rule, the user's networks) and language (the account's first). */
export interface Newcomer {
  address?: string | undefined;
  locale?: Locale | undefined;
}

export async function register(deps: ApiDeps, input: RegisterInput, from: Newcomer = {}) {
  // The answer waits for the one step every registration takes, the hash; looking the address up,
  // creating the account and mailing happen after it, so a known email cannot answer differently.
  // A referral code is checked before the answer: whether it exists says nothing about the email.
  const referrerId = input.referralCode ? await findReferrer(deps.db, input.referralCode) : null;
  const passwordHash = await hashPassword(input.password);
  afterAnswer(deps, input.email, 'registration', () => completeRegistration(deps, input, passwordHash, referrerId, from));
  return { message: REGISTER_MESSAGE };
}

async function completeRegistration(deps: ApiDeps, input: RegisterInput, passwordHash: string, referrerId: string | null, { address, locale }: Newcomer) {
  const existing = await findByEmail(deps, input.email);
  if (existing) {
    if (!existing.emailVerifiedAt && !existing.disabledAt) await sendVerification(deps, existing);
    else await deps.mailer.send(mailTemplates.alreadyRegistered(existing, link(deps, '/login')));
    return;
  }
  let user: UserAccount;
  try {
    user = await deps.db.transaction(async (tx) => {
      const created = await createAccount(tx, deps.secrets, { email: input.email, name: input.name, passwordHash, emailVerified: false, locale });
      if (referrerId) await attachReferrer(tx, { userId: created.id, referrerId, address });
      await recordNetwork(tx, created.id, address);
      return created;
    });
  } catch (e) {
    // Another server process registered the same email at the same moment: that one mails.
    if (isUniqueViolation(e)) return;
    throw e;
  }
  await sendVerification(deps, user);
}

export type LoginResult =
  { status: 'ok'; user: Awaited<ReturnType<typeof getUserView>> } | { status: 'verification_required'; message: string } | { status: 'two_factor_required' };

export const INVALID_LOGIN = 'Invalid email or password';
export const VERIFY_FIRST = 'Please verify your email before signing in. Check your inbox for the verification link.';

/** Checks a password sign-in; on `ok` the caller starts a session for `user.id`. */
export async function login(deps: ApiDeps, input: LoginInput): Promise<LoginResult> {
  const user = await findByEmail(deps, input.email);
  const ok = await verifyPassword(user?.passwordHash, input.password);
  if (!user || !ok) throw new DomainError('UNAUTHORIZED', INVALID_LOGIN);
  if (user.disabledAt) throw new DomainError('FORBIDDEN', ACCOUNT_DISABLED_MESSAGE);
  if (!user.emailVerifiedAt) return { status: 'verification_required', message: VERIFY_FIRST };
  return { status: 'ok', user: await getUserView(deps.db, deps.secrets, user.id) };
}

export const VERIFICATION_REPLACED = 'A newer verification link was sent to your email. Please use the link in the latest message.';

export type VerifyResult = { alreadyVerified: boolean; message: string };

export async function verifyEmail(deps: ApiDeps, token: string): Promise<VerifyResult> {
  return deps.db.transaction(async (tx) => {
    const r = await consumeToken(tx, token, 'email_verification');
    if (r.status === 'unknown') throw new DomainError('BAD_REQUEST', 'Invalid or unknown verification link. Please request a new one.');
    if (r.status === 'expired') throw new DomainError('BAD_REQUEST', 'This verification link has expired. Please request a new one.');
    const [user] = await tx.select({ verifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.id, r.userId));
    if (user?.verifiedAt) return { alreadyVerified: true, message: 'Your email is already verified.' };
    // Used but the address unverified: a link voided by a newer one (links issued before they all stayed good).
    if (r.status === 'used') throw new DomainError('BAD_REQUEST', VERIFICATION_REPLACED);
    await tx
      .update(users)
      .set({ emailVerifiedAt: new Date() })
      .where(and(eq(users.id, r.userId), isNull(users.emailVerifiedAt)));
    return { alreadyVerified: false, message: 'Email verified successfully. You can now sign in.' };
  });
}

export function resendVerification(deps: ApiDeps, email: string) {
  afterAnswer(deps, email, 'verification mail', async () => {
    const user = await findByEmail(deps, email);
    if (user && !user.emailVerifiedAt && !user.disabledAt) await sendVerification(deps, user);
  });
  return { message: RESEND_MESSAGE };
}

export function forgotPassword(deps: ApiDeps, email: string) {
  afterAnswer(deps, email, 'reset mail', async () => {
    const user = await findByEmail(deps, email);
    if (!user || user.disabledAt) return;
    const token = await issueToken(deps.db, { userId: user.id, purpose: 'password_reset', ttlMs: PASSWORD_RESET_TTL_MS, replaceEarlier: true });
    await deps.mailer.send(mailTemplates.resetPassword(user, link(deps, '/reset-password', token)));
  });
  return { message: FORGOT_MESSAGE };
}

export const RESET_INVALID = 'This reset link is invalid or has expired. Please request a new password reset.';

export async function resetPassword(deps: ApiDeps, input: { token: string; password: string }) {
  const passwordHash = await hashPassword(input.password);
  const user = await deps.db.transaction(async (tx) => {
    const r = await consumeToken(tx, input.token, 'password_reset');
    if (r.status !== 'ok')
      throw new DomainError('BAD_REQUEST', r.status === 'used' ? 'This reset link has already been used. Please request a new password reset.' : RESET_INVALID);
    // Following the mailed link proves the address, so it counts as verified too.
    const [u] = await tx.select().from(users).where(eq(users.id, r.userId));
    await tx
      .update(users)
      .set({ passwordHash, emailVerifiedAt: u!.emailVerifiedAt ?? new Date() })
      .where(eq(users.id, r.userId));
    return u!;
  });
  await deps.sessions.user.endAll(user.id);
  inBackground(deps, 'password changed mail', () => deps.mailer.send(mailTemplates.passwordChanged(user, link(deps, '/login'))));
  return { message: 'Password reset successfully. You can now sign in with your new password.' };
}

export const GOOGLE_EXISTING_UNVERIFIED = 'An account with this email already exists. Sign in with your password to continue.';
export const GOOGLE_UNVERIFIED = 'Your Google email address is not verified. Verify it with Google, or create an account with email and password.';

/**
 * Google sign-in: accounts are keyed on Google's `sub`. An existing email account is linked only
 * when Google says the email is verified; otherwise the sign-in is refused rather than taken over.
 * Pre-hijacking: someone may have registered the address with a password and never verified it;
 * linking proves the address belongs to the Google user, so that unproven password is dropped.
 * A new account is only created for an address Google has verified, so nobody can park an
 * unverified Google account on someone else's email. The caller starts a session for `userId`.
 */
/** A refusal becomes "none"; anything else (the database failing) still fails the call. */
const unlessDomainError = (e: unknown): null => {
  if (e instanceof DomainError) return null;
  throw e;
};

export async function signInWithGoogle(
  deps: ApiDeps,
  profile: GoogleProfile,
  referralCode?: string,
  { address, locale }: Newcomer = {},
): Promise<{ userId: string }> {
  // A referral link's code counts for a new account only; one that names nobody (any more) is
  // dropped rather than failing a sign-in Google has already approved.
  const referrerId = referralCode ? await findReferrer(deps.db, referralCode).catch(unlessDomainError) : null;
  let account: UserAccount;
  try {
    account = await deps.db.transaction(async (tx) => {
      const [bySub] = await tx.select().from(users).where(eq(users.googleSub, profile.sub)).limit(1);
      if (bySub) return bySub;
      if (!profile.email) throw new DomainError('BAD_REQUEST', 'Google did not share an email address for this account.');
      const [byEmail] = await tx.select().from(users).where(eq(users.email, profile.email)).limit(1);
      if (byEmail) {
        if (!profile.emailVerified) throw new DomainError('FORBIDDEN', GOOGLE_EXISTING_UNVERIFIED);
        if (byEmail.googleSub) throw new DomainError('CONFLICT', 'This email is already linked to a different Google account.');
        const proven = byEmail.emailVerifiedAt !== null;
        const [linked] = await tx
          .update(users)
          .set({ googleSub: profile.sub, emailVerifiedAt: byEmail.emailVerifiedAt ?? new Date(), ...(proven ? {} : { passwordHash: null }) })
          .where(eq(users.id, byEmail.id))
          .returning();
        return linked!;
      }
      if (!profile.emailVerified) throw new DomainError('FORBIDDEN', GOOGLE_UNVERIFIED);
      const name = profile.name?.trim().slice(0, 100) || profile.email.split('@')[0]!;
      const created = await createAccount(tx, deps.secrets, {
        email: profile.email,
        name,
        passwordHash: null,
        googleSub: profile.sub,
        emailVerified: true,
        locale,
      });
      if (referrerId) await attachReferrer(tx, { userId: created.id, referrerId, address });
      await recordNetwork(tx, created.id, address);
      return created;
    });
  } catch (e) {
    // Two callbacks for one new Google account at once: the loser asks the user to retry.
    if (isUniqueViolation(e)) throw new DomainError('CONFLICT', 'Google sign-in is already in progress for this account. Please try again.');
    throw e;
  }
  if (account.disabledAt) throw new DomainError('FORBIDDEN', ACCOUNT_DISABLED_MESSAGE);
  return { userId: account.id };
}
