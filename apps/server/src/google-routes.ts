import { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ZodError } from 'zod';
import { GOOGLE_NOT_CONFIGURED, servedOverHttps, type ApiDeps } from '@proxyhub/api';
import { callerFor } from './request-adapter';

const STATE_COOKIE = 'google_oauth_state';
const VERIFIER_COOKIE = 'google_code_verifier';
/** `/auth/google?ref=CODE` (from /login?ref=CODE): the referral code, for the account the callback may create. */
const REFERRAL_COOKIE = 'google_referral';
const REFERRAL_RE = /^[A-Za-z0-9]{1,20}$/;
const GOOGLE_FAILED = 'Google sign-in failed. Please try again.';

/**
 * Browser redirects for Google sign-in. State and PKCE verifier live in short-lived HttpOnly
 * cookies scoped to the callback; errors return to the login page with a readable message.
 */
export async function googleSignIn(app: FastifyInstance, { deps }: { deps: ApiDeps }) {
  const toLogin = (reply: FastifyReply, message: string) => reply.redirect(`/login?error=${encodeURIComponent(message)}`);
  const cookieOpts = { path: '/auth/google', httpOnly: true, sameSite: 'lax' as const, secure: servedOverHttps(deps.config), maxAge: 600 };

  app.get<{ Querystring: Record<string, unknown> }>('/auth/google', async (req, reply) => {
    if (!deps.config.google) return toLogin(reply, GOOGLE_NOT_CONFIGURED);
    const caller = await callerFor(deps, req, reply);
    const { url, state, codeVerifier } = await caller.auth.googleStart();
    reply.setCookie(STATE_COOKIE, state, cookieOpts).setCookie(VERIFIER_COOKIE, codeVerifier, cookieOpts);
    const ref = req.query?.ref;
    // A new flow without a code must not inherit one from an abandoned earlier flow.
    if (typeof ref === 'string' && REFERRAL_RE.test(ref)) reply.setCookie(REFERRAL_COOKIE, ref, cookieOpts);
    else reply.clearCookie(REFERRAL_COOKIE, { path: '/auth/google' });
    return reply.redirect(url);
  });

  app.get<{ Querystring: Record<string, unknown> }>('/auth/google/callback', async (req, reply) => {
    // The state and verifier are single use: whatever happens next, they are gone.
    reply
      .clearCookie(STATE_COOKIE, { path: '/auth/google' })
      .clearCookie(VERIFIER_COOKIE, { path: '/auth/google' })
      .clearCookie(REFERRAL_COOKIE, { path: '/auth/google' });
    if (!deps.config.google) return toLogin(reply, GOOGLE_NOT_CONFIGURED);
    const { code, state, error } = req.query ?? {};
    if (error !== undefined || typeof code !== 'string' || typeof state !== 'string' || !code || !state) return toLogin(reply, 'Google sign-in was cancelled.');
    try {
      const caller = await callerFor(deps, req, reply);
      const r = await caller.auth.googleCallback({
        code,
        state,
        expectedState: req.cookies[STATE_COOKIE],
        codeVerifier: req.cookies[VERIFIER_COOKIE],
        referralCode: req.cookies[REFERRAL_COOKIE],
      });
      // Two-factor sign-in on: Google proved the password step only; the login page asks for the code.
      return reply.redirect(r.requiresTwoFactor ? '/login?twoFactor=1' : '/dashboard');
    } catch (err) {
      if (err instanceof TRPCError && err.code !== 'INTERNAL_SERVER_ERROR') {
        // A zod message about a query field means nothing to a person: say what happened instead.
        return toLogin(reply, err.cause instanceof ZodError ? GOOGLE_FAILED : err.message);
      }
      throw err;
    }
  });
}
