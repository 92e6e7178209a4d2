import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { createGoogleSignIn } from '@proxyhub/auth';
import {
  ACCOUNT_ADMIN_SCOPE,
  changePasswordInput,
  deleteAccountInput,
  DomainError,
  forgotPasswordInput,
  renameInput,
  updateAccountInput,
  loginInput,
  type LoginInput,
  referralCodeField,
  registerInput,
  resendVerificationInput,
  resetPasswordInput,
  resetTokenCheckInput,
  roleAllows,
  verifyEmailInput,
  authMeAnswerOutput,
  authRotateApiKeyOutput,
  authRotateProxyPasswordOutput,
  authRegisterOutput,
  authLoginOutput,
  authLogoutOutput,
  authChangePasswordOutput,
  authRenameOutput,
  authDeleteAccountOutput,
  authSignInOptionsOutput,
  authVerifyEmailOutput,
  authResendVerificationOutput,
  authForgotPasswordOutput,
  authResetPasswordOutput,
  authCheckResetTokenOutput,
  authGoogleStartOutput,
  authGoogleCallbackOutput,
} from '@proxyhub/core';
import { getUserView, rotateApiKey, rotateProxyPassword, type UserView } from '../services/accounts/users';
import { changePassword, deleteAccount, updateAccount } from '../services/accounts/user-settings';
import { forgotPassword, login, register, resendVerification, resetPassword, signInWithGoogle, verifyEmail } from '../services/accounts/sign-in';
import { endSession, startSession, type Context } from '../context';
import { tokenUsable } from '../services/accounts/one-time-tokens';
import { clientKey, limited, signInLimited } from '../limits';
import { holdsScope, publicProcedure, scopedProcedure, userProcedure } from '../trpc';
import type { ApiDeps } from '../deps';

export const GOOGLE_NOT_CONFIGURED = 'Google sign-in is not available on this server. Please sign in with your email and password.';

function google(deps: ApiDeps) {
  const cfg = deps.config.google;
  if (!cfg) return null;
  return createGoogleSignIn({ ...cfg, redirectUri: new URL('/auth/google/callback', deps.config.publicUrl).toString() });
}
import { twoFactorEnabled } from '../services/accounts/two-factor';
import { owePendingSecondFactor } from './two-factor';

export const authRouter = {
  /** The account the call acts on; with a member acting on a team's account, `actor` is the member. */
  me: scopedProcedure('accounts:read', { anyMember: true })
    .output(authMeAnswerOutput)
    .query(async ({ ctx }) => {
      const view = await ctx.deps.cache.get(`user-view:${ctx.user.id}`, () => getUserView(ctx.db, ctx.deps.secrets, ctx.user.id));
      const actor = ctx.actor;
      // The Default key's secret is every right: a key with scopes, or a member, must not read its way to it.
      const apiKey = holdsScope(ctx, ACCOUNT_ADMIN_SCOPE) && !actor ? view.apiKey : '';
      // A member whose role cannot read proxy accounts does not see the main proxy password either.
      const proxyPassword = actor && !roleAllows(actor.role, 'accounts:read') ? '' : view.proxyPassword;
      const answer: UserView & { actor?: Context['actor'] } = { ...view, apiKey, proxyPassword, actor };
      return answer;
    }),
  /** Leaked credentials: a new Default API key (the old one stops working at once) or main proxy password. */
  rotateApiKey: userProcedure.output(authRotateApiKeyOutput).mutation(({ ctx }) => rotateApiKey(ctx.db, ctx.deps.secrets, ctx.user.id)),
  rotateProxyPassword: scopedProcedure('accounts:write')
    .output(authRotateProxyPasswordOutput)
    .mutation(({ ctx }) => rotateProxyPassword(ctx.db, ctx.deps.secrets, ctx.user.id)),
  register: publicProcedure
    .input(registerInput)
    .use(limited((ctx) => [['register', clientKey(ctx)]]))
    .output(authRegisterOutput)
    .mutation(({ ctx, input }) => register(ctx.deps, input, { address: ctx.req.ip, locale: ctx.req.locale })),
  login: publicProcedure
    .input(loginInput)
    .use(signInLimited('login', (input: LoginInput) => input.email))
    .output(authLoginOutput)
    .mutation(async ({ ctx, input }) => {
      const r = await login(ctx.deps, input);
      if (r.status !== 'ok') return r;
      // The password was right; with two-factor sign-in on, the session waits for the code.
      if (await twoFactorEnabled(ctx.db, { kind: 'user', id: r.user.id })) {
        await owePendingSecondFactor(ctx, { kind: 'user', id: r.user.id });
        return { status: 'two_factor_required' as const };
      }
      await startSession(ctx, 'user', r.user.id);
      // Read again: the sign-in just counted decides whether this is a returning user.
      return { status: 'ok' as const, user: await getUserView(ctx.db, ctx.deps.secrets, r.user.id) };
    }),
  logout: publicProcedure.output(authLogoutOutput).mutation(async ({ ctx }) => {
    await endSession(ctx, 'user');
    return { message: 'Logged out' };
  }),
  /** Settings: a new password proven by the current one; other sessions end, this one stays. */
  changePassword: userProcedure
    .input(changePasswordInput)
    .use(limited((ctx) => [['accountPassword', ctx.user?.id ?? clientKey(ctx)]], { failuresOnly: true }))
    .output(authChangePasswordOutput)
    .mutation(({ ctx, input }) => changePassword(ctx.deps, { ...input, userId: ctx.user.id, keepSessionId: ctx.sessionId })),
  rename: userProcedure
    .input(renameInput)
    .output(authRenameOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => updateAccount(tx, ctx.deps.secrets, ctx.user.id, input))),
  /** `PATCH /api/account`: the name and the language (mails and bot replies follow it). */
  updateAccount: userProcedure
    .input(updateAccountInput)
    .output(authRenameOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => updateAccount(tx, ctx.deps.secrets, ctx.user.id, input))),
  /** Deletes the caller's account (anonymised: the ledger keeps its rows) and signs this browser out. */
  deleteAccount: userProcedure
    .input(deleteAccountInput)
    .use(limited((ctx) => [['accountPassword', ctx.user?.id ?? clientKey(ctx)]], { failuresOnly: true }))
    .output(authDeleteAccountOutput)
    .mutation(async ({ ctx, input }) => {
      const r = await deleteAccount(ctx.deps, { ...input, userId: ctx.user.id });
      ctx.res.setCookie(ctx.deps.sessions.user.blankCookie());
      return r;
    }),
  /** What the sign-in page offers: the Google button only when Google sign-in is configured. */
  signInOptions: publicProcedure.output(authSignInOptionsOutput).query(({ ctx }) => ({ google: ctx.deps.config.google !== null })),
  verifyEmail: publicProcedure
    .input(verifyEmailInput)
    .output(authVerifyEmailOutput)
    .mutation(({ ctx, input }) => verifyEmail(ctx.deps, input.token)),
  resendVerification: publicProcedure
    .input(resendVerificationInput)
    .use(
      limited((ctx, input: { email: string }) => [
        ['resend', clientKey(ctx)],
        ['resendAccount', input.email],
      ]),
    )
    .output(authResendVerificationOutput)
    .mutation(({ ctx, input }) => resendVerification(ctx.deps, input.email)),
  forgotPassword: publicProcedure
    .input(forgotPasswordInput)
    .use(
      limited((ctx, input: { email: string }) => [
        ['forgot', clientKey(ctx)],
        ['forgotAccount', input.email],
      ]),
    )
    .output(authForgotPasswordOutput)
    .mutation(({ ctx, input }) => forgotPassword(ctx.deps, input.email)),
  resetPassword: publicProcedure
    .input(resetPasswordInput)
    .use(limited((ctx) => [['reset', clientKey(ctx)]]))
    .output(authResetPasswordOutput)
    .mutation(({ ctx, input }) => resetPassword(ctx.deps, input)),
  /** The reset page's check as it opens (the token is not spent), limited per address like the reset. */
  checkResetToken: publicProcedure
    .input(resetTokenCheckInput)
    .use(limited((ctx) => [['resetCheck', clientKey(ctx)]]))
    .output(authCheckResetTokenOutput)
    .query(async ({ ctx, input }) => ({ valid: await tokenUsable(ctx.db, input.token, 'password_reset') })),
  /** Starts Google sign-in: the caller keeps state and verifier in short-lived cookies. */
  googleStart: publicProcedure.output(authGoogleStartOutput).query(({ ctx }) => {
    const g = google(ctx.deps);
    if (!g) throw new DomainError('NOT_FOUND', GOOGLE_NOT_CONFIGURED);
    return g.start();
  }),
  googleCallback: publicProcedure
    .input(
      z.object({
        code: z.string().min(1).max(2048),
        state: z.string().min(1).max(256),
        expectedState: z.string().max(256).optional(),
        codeVerifier: z.string().max(256).optional(),
        /** The referral link's code the sign-in was started from (kept in a cookie across the round trip). */
        referralCode: referralCodeField.catch(undefined),
      }),
    )
    .output(authGoogleCallbackOutput)
    .mutation(async ({ ctx, input }) => {
      const g = google(ctx.deps);
      if (!g) throw new DomainError('NOT_FOUND', GOOGLE_NOT_CONFIGURED);
      if (!input.expectedState || !input.codeVerifier || input.state !== input.expectedState) {
        throw new DomainError('BAD_REQUEST', 'Google sign-in expired or was started elsewhere. Please try again.');
      }
      let profile;
      try {
        profile = await g.finish(input.code, input.codeVerifier);
      } catch (err) {
        ctx.deps.logger.warn({ err }, 'google token exchange failed');
        throw new DomainError('BAD_REQUEST', 'Google sign-in failed. Please try again.');
      }
      const signedIn = await signInWithGoogle(ctx.deps, profile, input.referralCode, { address: ctx.req.ip, locale: ctx.req.locale });
      if (await twoFactorEnabled(ctx.db, { kind: 'user', id: signedIn.userId })) {
        await owePendingSecondFactor(ctx, { kind: 'user', id: signedIn.userId });
        return { ...signedIn, requiresTwoFactor: true };
      }
      await startSession(ctx, 'user', signedIn.userId);
      return { ...signedIn, requiresTwoFactor: false };
    }),
} satisfies TRPCRouterRecord;
