import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '@proxyhub/api';
import { rest } from './rest';

/** Query strings are text: numbers become numbers so the shared schema judges them (NaN is refused). */
const num = (v: unknown) => (v === undefined || v === '' ? undefined : Number(v));

/** The largest page the users procedure serves. */
const ALL_USERS_PAGE = 100;

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
      const search = q.search as string | undefined;
      if (q.page === undefined && q.pageSize === undefined) {
        // The spec's call takes no parameters and lists all users: read every page (page/pageSize ask for one).
        const users: Awaited<ReturnType<typeof caller.admin.users>>['users'] = [];
        const seen = new Set<string>();
        for (let page = 1; ; page++) {
          const r = await caller.admin.users({ search, page, pageSize: ALL_USERS_PAGE });
          for (const u of r.users) {
            if (seen.has(u.id)) continue;
            seen.add(u.id);
            users.push(u);
          }
          if (r.users.length < ALL_USERS_PAGE) return { success: true, users, total: users.length };
        }
      }
      const r = await caller.admin.users({ search, page: num(q.page), pageSize: num(q.pageSize) ?? ALL_USERS_PAGE });
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
