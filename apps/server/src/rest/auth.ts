import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '@proxyhub/api';
import { RestResponse, rest } from './rest';

/** The spec's /auth paths over the auth router: same procedures, the spec's field names. */
export function registerAuthRoutes(app: FastifyInstance, deps: ApiDeps) {
  app.get('/auth/user', rest(deps, async (caller) => ({ success: true, user: await caller.auth.me() })));

  app.post('/auth/logout', rest(deps, async (caller) => ({ success: true, ...(await caller.auth.logout()) })));

  app.post('/auth/register', rest(deps, async (caller, body) => ({ success: true, ...(await caller.auth.register(body as never)) })));

  app.post(
    '/auth/login',
    rest(deps, async (caller, body) => {
      const r = await caller.auth.login(body as never);
      if (r.status === 'verification_required') {
        return new RestResponse(403, { success: false, requiresVerification: true, error: r.message });
      }
      return { success: true, user: r.user, requiresVerification: false };
    }, { requiresVerification: false }),
  );

  app.get(
    '/auth/verify-email',
    rest(deps, async (caller, query) => {
      const r = await caller.auth.verifyEmail(query as never);
      return { success: true, alreadyVerified: r.alreadyVerified, message: r.message };
    }),
  );

  app.post('/auth/resend-verification', rest(deps, async (caller, body) => ({ success: true, ...(await caller.auth.resendVerification(body as never)) })));
  app.post('/auth/forgot-password', rest(deps, async (caller, body) => ({ success: true, ...(await caller.auth.forgotPassword(body as never)) })));
  app.post('/auth/reset-password', rest(deps, async (caller, body) => ({ success: true, ...(await caller.auth.resetPassword(body as never)) })));
}
