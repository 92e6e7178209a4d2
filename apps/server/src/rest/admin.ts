import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '@proxyhub/api';
import { rest } from './rest';

/** Query strings are text: numbers become numbers so the shared schema judges them (NaN is refused). */
const num = (v: unknown) => (v === undefined || v === '' ? undefined : Number(v));

/** The spec's admin paths over the admin router. */
export function registerAdminRoutes(app: FastifyInstance, deps: ApiDeps) {
  app.post(
    '/auth/admin/login',
    rest(deps, async (caller, body) => {
      await caller.admin.login(body as never);
      return { success: true };
    }),
  );
  app.post('/auth/admin/logout', rest(deps, async (caller) => caller.admin.logout()));
  app.get('/auth/admin/me', rest(deps, async (caller) => ({ success: true, ...(await caller.admin.me()) })));

  app.post('/admin/codes/create', rest(deps, async (caller, body) => ({ success: true, ...(await caller.admin.createCodes(body as never)) })));

  app.get(
    '/admin/users',
    rest(deps, async (caller, query) => {
      const q = (query ?? {}) as Record<string, unknown>;
      const r = await caller.admin.users({ search: q.search as string | undefined, page: num(q.page), pageSize: num(q.pageSize) ?? 100 });
      return { success: true, users: r.users, total: r.total };
    }),
  );

  app.get('/admin/usage/global', rest(deps, async (caller) => ({ success: true, ...(await caller.admin.globalUsage()) })));

  app.get(
    '/admin/payments',
    rest(deps, async (caller, query) => {
      const q = (query ?? {}) as Record<string, unknown>;
      return { success: true, ...(await caller.admin.payments({ page: num(q.page), pageSize: num(q.pageSize) })) };
    }),
  );
}
