import { z } from 'zod';
import {
  forgotPasswordInput,
  loginInput,
  registerInput,
  resendVerificationInput,
  resetPasswordInput,
  resetTokenCheckInput,
  verifyEmailInput,
  authCheckResetTokenOutput,
  authForgotPasswordOutput,
  authLogoutOutput,
  authMeOutput,
  teamActorOutput,
  authRegisterOutput,
  authResendVerificationOutput,
  authResetPasswordOutput,
  authVerifyEmailOutput,
} from '@proxyhub/core';
import { errorBody } from '../error-answer';
import { RestResponse, restRoute, withSuccess } from './rest';

/** A sign-in's answer: signed in, or the password was right and a second factor is owed (403 when the email is unverified). */
const loginAnswer = z.union([
  z.object({ success: z.literal(true), user: authMeOutput, requiresVerification: z.literal(false) }),
  z.object({ success: z.literal(false), requiresTwoFactor: z.literal(true), requiresVerification: z.literal(false) }),
]);

/** The spec's /auth paths over the auth router: same procedures, the spec's field names. */
export const authRoutes = [
  restRoute(
    {
      method: 'GET',
      url: '/auth/user',
      summary: 'The signed-in user (or the team account a member acts on, and the member as actor): balance, usage, proxy credentials and API key.',
      response: z.object({ success: z.literal(true), user: authMeOutput, actor: teamActorOutput.optional() }),
    },
    async (caller) => {
      const { actor, ...user } = await caller.auth.me();
      // The account acted on is `user`; a team member acting on it is `actor` (absent otherwise).
      return actor ? { success: true as const, user, actor } : { success: true as const, user };
    },
  ),
  restRoute({ method: 'POST', url: '/auth/logout', summary: 'Signs out: ends the session.', response: withSuccess(authLogoutOutput) }, async (caller) => ({
    success: true as const,
    ...(await caller.auth.logout()),
  })),
  restRoute(
    {
      method: 'POST',
      url: '/auth/register',
      summary: 'Creates an account and mails the verification link.',
      response: withSuccess(authRegisterOutput),
      body: registerInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.auth.register(input)),
    }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/login',
      summary: 'Signs in with email and password (a second factor, when enabled, follows at POST /auth/login/2fa).',
      response: loginAnswer,
      body: loginInput,
      errorFields: { requiresVerification: false },
    },
    async (caller, input) => {
      const r = await caller.auth.login(input);
      if (r.status === 'verification_required') return new RestResponse(403, { ...errorBody(403, r.message), requiresVerification: true });
      // The password was right: finish with POST /auth/login/2fa and the pending-login cookie.
      if (r.status === 'two_factor_required') return { success: false as const, requiresTwoFactor: true as const, requiresVerification: false as const };
      return { success: true as const, user: r.user, requiresVerification: false as const };
    },
  ),
  restRoute(
    {
      method: 'GET',
      url: '/auth/verify-email',
      summary: 'Verifies an email address with the token from the mailed link.',
      response: withSuccess(authVerifyEmailOutput),
      query: verifyEmailInput,
    },
    async (caller, input) => {
      const r = await caller.auth.verifyEmail(input);
      return { success: true, alreadyVerified: r.alreadyVerified, message: r.message };
    },
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/resend-verification',
      summary: 'Mails the verification link again.',
      response: withSuccess(authResendVerificationOutput),
      body: resendVerificationInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.auth.resendVerification(input)),
    }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/forgot-password',
      summary: 'Mails a password-reset link (the same answer whether or not the address has an account).',
      response: withSuccess(authForgotPasswordOutput),
      body: forgotPasswordInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.auth.forgotPassword(input)),
    }),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/auth/reset-password/check',
      summary: 'Whether a password-reset token is still valid.',
      response: authCheckResetTokenOutput,
      query: resetTokenCheckInput,
    },
    (caller, input) => caller.auth.checkResetToken(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/reset-password',
      summary: 'Sets a new password with a reset token.',
      response: withSuccess(authResetPasswordOutput),
      body: resetPasswordInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.auth.resetPassword(input)),
    }),
  ),
];
