import {
  forgotPasswordInput,
  loginInput,
  registerInput,
  resendVerificationInput,
  resetPasswordInput,
  resetTokenCheckInput,
  verifyEmailInput,
} from '@proxyhub/core';
import { RestResponse, restRoute } from './rest';

/** The spec's /auth paths over the auth router: same procedures, the spec's field names. */
export const authRoutes = [
  restRoute({ method: 'GET', url: '/auth/user' }, async (caller) => {
    const { actor, ...user } = await caller.auth.me();
    // The account acted on is `user`; a team member acting on it is `actor` (absent otherwise).
    return actor ? { success: true, user, actor } : { success: true, user };
  }),
  restRoute({ method: 'POST', url: '/auth/logout' }, async (caller) => ({ success: true, ...(await caller.auth.logout()) })),
  restRoute({ method: 'POST', url: '/auth/register', body: registerInput }, async (caller, input) => ({
    success: true,
    ...(await caller.auth.register(input)),
  })),
  restRoute({ method: 'POST', url: '/auth/login', body: loginInput, errorFields: { requiresVerification: false } }, async (caller, input) => {
    const r = await caller.auth.login(input);
    if (r.status === 'verification_required') return new RestResponse(403, { success: false, requiresVerification: true, error: r.message });
    // The password was right: finish with POST /auth/login/2fa and the pending-login cookie.
    if (r.status === 'two_factor_required') return { success: false, requiresTwoFactor: true, requiresVerification: false };
    return { success: true, user: r.user, requiresVerification: false };
  }),
  restRoute({ method: 'GET', url: '/auth/verify-email', query: verifyEmailInput }, async (caller, input) => {
    const r = await caller.auth.verifyEmail(input);
    return { success: true, alreadyVerified: r.alreadyVerified, message: r.message };
  }),
  restRoute({ method: 'POST', url: '/auth/resend-verification', body: resendVerificationInput }, async (caller, input) => ({
    success: true,
    ...(await caller.auth.resendVerification(input)),
  })),
  restRoute({ method: 'POST', url: '/auth/forgot-password', body: forgotPasswordInput }, async (caller, input) => ({
    success: true,
    ...(await caller.auth.forgotPassword(input)),
  })),
  restRoute({ method: 'GET', url: '/auth/reset-password/check', query: resetTokenCheckInput }, (caller, input) => caller.auth.checkResetToken(input)),
  restRoute({ method: 'POST', url: '/auth/reset-password', body: resetPasswordInput }, async (caller, input) => ({
    success: true,
    ...(await caller.auth.resetPassword(input)),
  })),
];
