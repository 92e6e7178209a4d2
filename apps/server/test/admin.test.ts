import { count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminUsers, proxyAccounts, usageHourly, users } from '@proxyhub/db';
import { verifyPassword } from '@proxyhub/auth';
import { bootstrapAdmin } from '../src/admin-bootstrap';
import { ADMIN_PASSWORD, ADMIN_USERNAME, adminClient, expectLedgerOk, internalClient, sessionClient } from './credits-helpers';
import { RELAXED_LIMITS, signedInUser, startTestServer, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

describe('admin sign-in', () => {
  it('logs in with its own cookie, knows who it is, logs out', async () => {
    const admin = await adminClient(server);
    expect(admin.cookies.has('admin_session')).toBe(true);
    expect(admin.cookies.has('session')).toBe(false);
    expect(await admin.get('/auth/admin/me')).toMatchObject({ status: 200, body: { success: true, username: ADMIN_USERNAME } });
    expect(await sessionClient(server, admin).admin.me.query()).toEqual({ username: ADMIN_USERNAME, role: 'owner' });
    expect((await admin.get('/admin/users')).status).toBe(200);
    expect(await admin.post('/auth/admin/logout')).toMatchObject({ status: 200, body: { success: true } });
    expect((await admin.get('/auth/admin/me')).status).toBe(401);
    expect((await admin.get('/admin/users')).status).toBe(401);
  });

  it('refuses wrong credentials and bad input', async () => {
    const anon = server.client();
    expect(await anon.post('/auth/admin/login', { username: ADMIN_USERNAME, password: 'wrong-password' })).toMatchObject({
      status: 401,
      body: { success: false, error: 'Invalid credentials' },
    });
    expect((await anon.post('/auth/admin/login', { username: 'nobody', password: ADMIN_PASSWORD })).status).toBe(401);
    expect(await anon.post('/auth/admin/login', { password: 'x' })).toMatchObject({ status: 400, body: { error: 'Username is required' } });
    expect(await anon.post('/auth/admin/login', { username: 'root' })).toMatchObject({ status: 400, body: { error: 'Password is required' } });
    expect(anon.cookies.has('admin_session')).toBe(false);
  });

  it('a user session is not an admin session, on every admin path', async () => {
    const { client } = await signedInUser(server);
    for (const [method, path] of [
      ['GET', '/admin/users'],
      ['GET', '/admin/usage/global'],
      ['GET', '/admin/payments'],
      ['POST', '/admin/codes/create'],
    ] as const) {
      const r = await client.request(method, path, method === 'POST' ? { creditsGB: 1, quantity: 1 } : undefined);
      expect({ path, status: r.status }).toEqual({ path, status: 403 });
      const anon = await server.client().request(method, path, method === 'POST' ? { creditsGB: 1, quantity: 1 } : undefined);
      expect({ path, status: anon.status }).toEqual({ path, status: 401 });
    }
    // The panel's session check says "not signed in as admin" to a signed-in user too (the contract).
    expect(await client.get('/auth/admin/me')).toMatchObject({ status: 401, body: { error: 'Admin login required' } });
    // A user's API key is not the internal key either.
    const { user } = await signedInUser(server);
    const keyed = server.client({ origin: null });
    keyed.bearer = user.apiKey;
    expect((await keyed.get('/admin/users')).status).toBe(403);
  });

  it('rate limits login attempts without locking the admin out', async () => {
    const limited = await startTestServer({
      trustProxy: true,
      rateLimits: {
        ...RELAXED_LIMITS,
        adminLoginAccountIp: { points: 3, durationSeconds: 600 },
        adminLoginIp: { points: 50, durationSeconds: 600 },
        adminLoginAccount: { points: 5, durationSeconds: 600, delayMs: 100 },
      },
    });
    try {
      await bootstrapAdmin(limited.deps, { username: 'root', password: 'Root-Password-1' });
      const c = limited.client({ ip: '10.9.0.1' });
      for (let i = 0; i < 3; i++) expect((await c.post('/auth/admin/login', { username: 'root', password: `guess-${i}` })).status).toBe(401);
      const refused = await c.post('/auth/admin/login', { username: 'root', password: 'guess-4' });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Ten more addresses fail once each: the account is past its ceiling.
      for (let i = 0; i < 10; i++) {
        expect((await limited.client({ ip: `10.9.1.${i}` }).post('/auth/admin/login', { username: 'root', password: 'nope' })).status).toBe(401);
      }
      // The admin, from an address that has not been failing, still signs in.
      const admin = limited.client({ ip: '10.9.2.1' });
      expect((await admin.post('/auth/admin/login', { username: 'root', password: 'Root-Password-1' })).status).toBe(200);
      expect((await admin.get('/auth/admin/me')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('admin bootstrap', () => {
  it('creates the admin from the configured password and updates it when it changes', async () => {
    await bootstrapAdmin(server.deps, { username: 'ops', password: 'First-Password-1' });
    await bootstrapAdmin(server.deps, { username: 'ops', password: 'Second-Password-2' });
    const rows = await server.deps.db.select().from(adminUsers).where(eq(adminUsers.username, 'ops'));
    expect(rows).toHaveLength(1);
    expect(await verifyPassword(rows[0]!.passwordHash, 'Second-Password-2')).toBe(true);
    expect((await server.client().post('/auth/admin/login', { username: 'ops', password: 'Second-Password-2' })).status).toBe(200);
  });

  it('in development without a password, generates one once', async () => {
    const printed: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void printed.push(args.join(' '));
    try {
      await bootstrapAdmin(server.deps, { username: 'devadmin', password: undefined });
      await bootstrapAdmin(server.deps, { username: 'devadmin', password: undefined });
    } finally {
      console.log = log;
    }
    expect(printed).toHaveLength(1);
    const password = /password: (\S+)/.exec(printed[0]!)![1]!;
    expect((await server.client().post('/auth/admin/login', { username: 'devadmin', password })).status).toBe(200);
  });
});

describe('admin views', () => {
  it('lists users with the spec fields, searchable and paginated', async () => {
    const a = await signedInUser(server, 'Zed Searchable');
    const admin = await adminClient(server);
    const r = await admin.get<{ success: boolean; users: Array<Record<string, unknown>>; total: number }>('/admin/users');
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    const row = r.body.users.find((u) => u.email === a.email);
    expect(row).toEqual({
      id: a.user.id,
      email: a.email,
      name: 'Zed Searchable',
      creditsGB: 0,
      totalUsageGB: 0,
      authType: 'email',
      emailVerified: true,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const internal = internalClient(server);
    const found = await internal.admin.users.query({ search: 'zed search' });
    expect(found.total).toBe(1);
    expect(found.users[0]!.email).toBe(a.email);
    expect((await internal.admin.users.query({ search: '%' })).total).toBe(0);
    const all = await internal.admin.users.query();
    const page1 = await internal.admin.users.query({ page: 1, pageSize: 2 });
    const page2 = await internal.admin.users.query({ page: 2, pageSize: 2 });
    expect(page1.total).toBe(all.total);
    expect(page1.users).toHaveLength(Math.min(2, all.total));
    expect(page2.users.map((u) => u.id)).toEqual(all.users.slice(2, 4).map((u) => u.id));
    expect(page1.users[0]!.createdAt).toBeInstanceOf(Date);
    await expect(internal.admin.users.query({ pageSize: 1000 })).rejects.toMatchObject({ message: 'Page size must be at most 200' });
    await expect(internal.admin.users.query({ page: 0 })).rejects.toMatchObject({ message: 'Page must be at least 1' });
    expect(await admin.get('/admin/users?page=abc')).toMatchObject({ status: 400, body: { error: 'Page must be a number' } });
  });

  it('GET /admin/users without parameters lists all users (the spec call), past one page', async () => {
    const rows = Array.from({ length: 130 }, (_, i) => ({
      email: `bulk-${i}-${Date.now()}@example.com`,
      name: `Bulk ${i}`,
      apiKeyHash: `bulk-hash-${i}-${Date.now()}`,
      apiKeyEnc: 'x',
    }));
    const inserted = await server.deps.db.insert(users).values(rows).returning({ id: users.id });
    const admin = await adminClient(server);
    const r = await admin.get<{ success: boolean; users: Array<{ id: string }>; total: number }>('/admin/users');
    expect(r.status).toBe(200);
    const [{ n }] = (await server.deps.db.select({ n: count() }).from(users)) as [{ n: number }];
    expect(r.body.users).toHaveLength(Number(n));
    expect(r.body.total).toBe(Number(n));
    expect(new Set(r.body.users.map((u) => u.id)).size).toBe(Number(n));
    const ids = new Set(r.body.users.map((u) => u.id));
    expect(inserted.every((u) => ids.has(u.id))).toBe(true);
    // Asking for a page still gives one page.
    const page = await admin.get<{ users: unknown[]; total: number }>('/admin/users?page=1');
    expect(page.body.users).toHaveLength(100);
    expect(page.body.total).toBe(Number(n));
  });

  it('reports global usage for the three usage types from the gateway usage rows', async () => {
    const admin = await adminClient(server);
    const empty = await admin.get<{ stats: Array<Record<string, unknown>> }>('/admin/usage/global');
    expect(empty.status).toBe(200);
    expect(empty.body.stats.map((s) => s.usage_type)).toEqual(['normal_proxy', 'shop_proxy_regular', 'shop_proxy_admin']);
    expect(empty.body.stats[0]).toEqual({ usage_type: 'normal_proxy', total_gb: 0, total_sessions: 0, last_updated: null });

    // The gateway report procedure belongs to another area: write its rows directly here.
    const { user } = await signedInUser(server);
    const [mine] = await server.deps.db.select().from(proxyAccounts).where(eq(proxyAccounts.proxyUserId, user.proxyUserId));
    const { accounts } = await internalClient(server).credits.createBatch.mutate({ accounts: 1, creditsGB: 1, usageType: 'shop_proxy_admin' });
    const [shop] = await server.deps.db.select().from(proxyAccounts).where(eq(proxyAccounts.proxyUserId, accounts[0]!.proxyUserId));
    const hour = new Date('2026-01-01T10:00:00Z');
    await server.deps.db.insert(usageHourly).values([
      { proxyAccountId: mine!.id, hour, usageType: 'normal_proxy', bytesUp: 1073741824n, bytesDown: 2147483648n, sessions: 7 },
      { proxyAccountId: mine!.id, hour: new Date('2026-01-01T11:00:00Z'), usageType: 'normal_proxy', bytesUp: 0n, bytesDown: 536870912n, sessions: 3 },
      { proxyAccountId: shop!.id, hour, usageType: 'shop_proxy_admin', bytesUp: 10n, bytesDown: 107374182n, sessions: 1 },
    ]);
    const r = await admin.get<{ stats: Array<{ usage_type: string; total_gb: number; total_sessions: number; last_updated: string | null }> }>(
      '/admin/usage/global',
    );
    expect(r.body.stats[0]).toMatchObject({ usage_type: 'normal_proxy', total_gb: 3.5, total_sessions: 10, last_updated: expect.any(String) });
    expect(r.body.stats[1]).toMatchObject({ usage_type: 'shop_proxy_regular', total_gb: 0, total_sessions: 0, last_updated: null });
    expect(r.body.stats[2]).toMatchObject({ usage_type: 'shop_proxy_admin', total_gb: 0.1, total_sessions: 1 });
    const typed = await internalClient(server).admin.globalUsage.query();
    expect(typed.stats[0]!.last_updated).toBeInstanceOf(Date);
    await server.deps.db.delete(usageHourly);
  });
});
