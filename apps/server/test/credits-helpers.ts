import { createTRPCClient, httpLink } from '@trpc/client';
import superjson from 'superjson';
import { expect } from 'vitest';
import { checkLedger, upsertAdmin, type AppRouter } from '@proxyhub/api';
import { INTERNAL_KEY, type HttpClient, type TestServer } from './helpers';

export const ADMIN_USERNAME = 'root';
export const ADMIN_PASSWORD = 'Admin-Password-123';

/** The admin the start-up bootstrap would create, then signed in over the REST path. */
export async function adminClient(server: TestServer): Promise<HttpClient> {
  await upsertAdmin(server.deps.db, { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
  const client = server.client();
  const r = await client.post('/auth/admin/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
  expect(r.status).toBe(200);
  return client;
}

/** A typed tRPC client as internal tools use it: the internal key as a bearer token. */
export function trpcClient(server: TestServer, opts: { bearer?: string; cookie?: () => string } = {}) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${server.url}/trpc`,
        transformer: superjson,
        headers: () => {
          const h: Record<string, string> = { origin: server.config.publicUrl };
          if (opts.bearer) h.authorization = `Bearer ${opts.bearer}`;
          const c = opts.cookie?.();
          if (c) h.cookie = c;
          return h;
        },
      }),
    ],
  });
}

export const internalClient = (server: TestServer) => trpcClient(server, { bearer: INTERNAL_KEY });
export const sessionClient = (server: TestServer, http: HttpClient) => trpcClient(server, { cookie: () => http.cookieHeader() });

/** The ledger invariant of DESIGN.md, checked after every test. */
export async function expectLedgerOk(server: TestServer) {
  const r = await checkLedger(server.deps.db);
  expect(r, `ledger: entries ${r.entries} = credits ${r.credits} + leased ${r.leased} + usage ${r.usage}`).toMatchObject({ ok: true });
}
