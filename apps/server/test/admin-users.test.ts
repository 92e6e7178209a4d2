/**
 * Admin operations on users over HTTP: search, filter, sort and page; one user in full; suspend and
 * unsuspend; balance corrections through the ledger; refusals for everyone but admins and tools.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_USERNAME, adminClient, expectLedgerOk } from './credits-helpers';
import { signedInUser, startTestServer, STRONG_PASSWORD, uniqueEmail, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

type Row = { id: string; email: string; name: string; creditsGB: number; emailVerified: boolean };
type Page = { success: true; users: Row[]; total: number; page: number; pageSize: number };

const GB = 1073741824n;

describe('GET /admin/users with parameters', () => {
  it('searches email, name and proxy user id in any case, filters by status, sorts and pages', async () => {
    const tag = `zq${Date.now().toString(36)}`;
    const a = await signedInUser(server, `Ada ${tag}`, { email: uniqueEmail(`${tag}-a`) });
    const b = await signedInUser(server, `Bob ${tag}`, { email: uniqueEmail(`${tag}-b`) });
    const unverified = uniqueEmail(`${tag}-c`);
    expect((await server.client().post('/auth/register', { email: unverified, password: STRONG_PASSWORD, name: `Cy ${tag}` })).status).toBe(200);
    await server.settle(); // the account is created after the answer (same answer for a known email)
    await admin.post(`/admin/users/${a.user.id}/adjust`, { deltaGB: 2, reason: 'sort test' });

    const byEmail = await admin.get<Page>(`/admin/users?q=${tag.toUpperCase()}`);
    expect(byEmail.status).toBe(200);
    expect(byEmail.body).toMatchObject({ success: true, total: 3, page: 1, pageSize: 100 });
    const byName = await admin.get<Page>(`/admin/users?q=${encodeURIComponent(`bob ${tag}`)}`);
    expect(byName.body.users.map((u) => u.id)).toEqual([b.user.id]);
    const byProxyId = await admin.get<Page>(`/admin/users?q=${a.user.proxyUserId.slice(2, 9)}`);
    expect(byProxyId.body.users.map((u) => u.id)).toContain(a.user.id);

    const unv = await admin.get<Page>(`/admin/users?q=${tag}&status=unverified`);
    expect(unv.body.users.map((u) => [u.email, u.emailVerified])).toEqual([[unverified, false]]);
    expect((await admin.get<Page>(`/admin/users?q=${tag}&status=active`)).body.total).toBe(2);

    const byCredits = await admin.get<Page>(`/admin/users?q=${tag}&sort=credits&order=desc`);
    expect(byCredits.body.users[0]).toMatchObject({ id: a.user.id, creditsGB: 2 });
    const emails = (await admin.get<Page>(`/admin/users?q=${tag}&sort=email`)).body.users.map((u) => u.email);
    expect(emails).toEqual([...emails].sort());
    const paged = await admin.get<Page>(`/admin/users?q=${tag}&sort=email&pageSize=2&page=2`);
    expect(paged.body).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(paged.body.users.map((u) => u.email)).toEqual([emails[2]]);

    // Without parameters: the spec's answer, every user.
    const all = await admin.get<{ success: boolean; users: Row[]; total: number; page?: number }>('/admin/users');
    expect(all.body.page).toBeUndefined();
    expect(all.body.total).toBe(all.body.users.length);

    for (const [q, error] of [
      ['pageSize=201', 'Page size must be at most 200'],
      ['status=gone', 'Status must be active, unverified, suspended or deleted'],
      ['sort=name', 'Sort must be by sign-up date, email, credits or usage'],
      ['order=up', 'Order must be asc or desc'],
    ] as const) {
      const r = await admin.get<{ error: string }>(`/admin/users?${q}`);
      expect({ q, status: r.status, error: r.body.error }).toEqual({ q, status: 400, error });
    }
  });
});

describe('one user', () => {
  it('shows profile, balances, proxy accounts, billing, 30 days of usage and sessions; unknown ids are 404', async () => {
    const { user } = await signedInUser(server);
    expect((await admin.post(`/admin/users/${user.id}/adjust`, { deltaGB: 1.25, reason: 'goodwill' })).status).toBe(200);
    const r = await admin.get<{
      profile: { email: string; status: string };
      balances: Record<string, string>;
      proxyAccounts: { proxyUserId: string; kind: string }[];
      billing: { kind: string; bytes: string; description: string }[];
      usageByDay: unknown[];
      sessions: { active: number };
    }>(`/admin/users/${user.id}`);
    expect(r.status).toBe(200);
    expect(r.body.profile).toMatchObject({ status: 'active' });
    expect(r.body.balances).toEqual({ remainingBytes: String((125n * GB) / 100n), creditsBytes: String((125n * GB) / 100n), leasedBytes: '0', usedBytes: '0' });
    expect(r.body.proxyAccounts).toEqual([expect.objectContaining({ proxyUserId: user.proxyUserId, kind: 'main' })]);
    expect(r.body.billing[0]).toMatchObject({ kind: 'adjustment', description: `Adjustment: goodwill (admin:${ADMIN_USERNAME})` });
    expect(r.body.usageByDay).toHaveLength(30);
    expect(r.body.sessions.active).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(r.body)).not.toContain(user.proxyPassword);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-user']) expect((await admin.get(`/admin/users/${id}`)).status).toBe(404);
  });
});

describe('suspend and unsuspend', () => {
  it('ends sessions, refuses sign-in and the API key with a message, and restores them without new credentials', async () => {
    const { client, user, email } = await signedInUser(server);
    const key = server.client({ origin: null });
    key.bearer = user.apiKey;
    expect((await admin.post<{ error: string }>(`/admin/users/${user.id}/suspend`, {})).body.error).toBe('A reason is required');
    const s = await admin.post(`/admin/users/${user.id}/suspend`, { reason: 'chargeback fraud' });
    expect(s).toMatchObject({ status: 200, body: { success: true } });
    expect((await admin.post<{ error: string }>(`/admin/users/${user.id}/suspend`, { reason: 'again' })).body.error).toBe('This user is already suspended');

    expect((await client.get('/auth/user')).status).toBe(401);
    const login = await server.client().post<{ error: string }>('/auth/login', { email, password: STRONG_PASSWORD });
    expect(login).toMatchObject({ status: 403, body: { error: 'This account has been disabled. Please contact support.' } });
    const byKey = await key.get<{ error: string }>('/auth/user');
    expect(byKey).toMatchObject({ status: 403, body: { error: 'This account has been disabled. Please contact support.' } });

    const detail = await admin.get<{ profile: { status: string; suspension: { reason: string; by: string } } }>(`/admin/users/${user.id}`);
    expect(detail.body.profile).toMatchObject({ status: 'suspended', suspension: { reason: 'chargeback fraud', by: `admin:${ADMIN_USERNAME}` } });
    const audit = await admin.get<{ entries: { action: string; reason: string }[] }>(`/admin/audit-log?target=user:${user.id}`);
    expect(audit.body.entries.map((e) => [e.action, e.reason])).toContainEqual(['admin.suspendUser', 'chargeback fraud']);
    expect((await admin.get<Page>(`/admin/users?q=${encodeURIComponent(email)}&status=suspended`)).body.users.map((u) => u.id)).toEqual([user.id]);

    expect((await admin.post(`/admin/users/${user.id}/unsuspend`, {})).status).toBe(200);
    expect((await admin.post<{ error: string }>(`/admin/users/${user.id}/unsuspend`, {})).body.error).toBe('This user is not suspended');
    expect((await key.get('/auth/user')).status).toBe(200);
    expect((await server.client().post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(200);
  });
});

describe('adjust a balance', () => {
  it('writes one adjustment the user sees in billing; never below zero; a reason and a non-zero amount are required', async () => {
    const { client, user } = await signedInUser(server);
    const up = await admin.post<{ success: boolean; creditsBytes: string }>(`/admin/users/${user.id}/adjust`, { deltaGB: 1.5, reason: 'outage credit' });
    expect(up.body).toMatchObject({ success: true, creditsBytes: String((3n * GB) / 2n) });
    const down = await admin.post(`/admin/users/${user.id}/adjust`, { deltaGB: -0.5, reason: 'double credit' });
    expect(down.status).toBe(200);
    const tooMuch = await admin.post<{ error: string }>(`/admin/users/${user.id}/adjust`, { deltaGB: -2, reason: 'oops' });
    expect(tooMuch).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^The balance cannot go below zero: this user has 1\.00 GB/) } });
    for (const [body, error] of [
      [{ deltaGB: 0, reason: 'x' }, 'Amount must not be 0'],
      [{ deltaGB: 1 }, 'A reason is required'],
      [{ deltaGB: 1, reason: '   ' }, 'A reason is required'],
      [{ deltaGB: 0.001, reason: 'x' }, 'Amount has at most two decimals'],
    ] as const) {
      const r = await admin.post<{ error: string }>(`/admin/users/${user.id}/adjust`, body);
      expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error });
    }
    const billing = await client.get<{ entries: { kind: string; bytes: string; description: string }[] }>('/api/billing');
    expect(billing.body.entries.map((e) => [e.kind, e.bytes, e.description])).toEqual([
      ['adjustment', String(-GB / 2n), 'Balance adjustment'],
      ['adjustment', String((3n * GB) / 2n), 'Balance adjustment'],
    ]);
    // The customer never reads an admin's user name or reason; the admin's view of the same history has both.
    expect(JSON.stringify(billing.body)).not.toContain(ADMIN_USERNAME);
    expect(JSON.stringify(billing.body)).not.toMatch(/outage credit|double credit/);
    const csv = await client.get<string>('/api/billing?format=csv');
    expect(csv.body).toContain('Balance adjustment');
    expect(csv.body).not.toContain('outage credit');
    expect(csv.body).not.toContain(`admin:${ADMIN_USERNAME}`);
    const me = await client.get<{ user: { credits: number } }>('/auth/user');
    expect(BigInt(me.body.user.credits)).toBe(GB);
  });
});

describe('refusals', () => {
  it('every new admin path refuses a user session and a user API key (403) and anonymous callers (401)', async () => {
    const { client, user } = await signedInUser(server);
    const key = server.client({ origin: null });
    key.bearer = user.apiKey;
    const anon = server.client();
    const calls: [string, string, unknown][] = [
      ['GET', `/admin/users?q=x`, undefined],
      ['GET', `/admin/users/${user.id}`, undefined],
      ['POST', `/admin/users/${user.id}/suspend`, { reason: 'x' }],
      ['POST', `/admin/users/${user.id}/unsuspend`, {}],
      ['POST', `/admin/users/${user.id}/adjust`, { deltaGB: 100, reason: 'x' }],
      ['GET', '/admin/audit-log', undefined],
    ];
    for (const [method, path, body] of calls) {
      for (const [who, c, status] of [
        ['user', client, 403],
        ['api key', key, 403],
        ['anonymous', anon, 401],
      ] as const) {
        const r = await c.request(method, path, body);
        expect({ who, method, path, status: r.status }).toEqual({ who, method, path, status });
      }
    }
    const me = await client.get<{ user: { credits: number } }>('/auth/user');
    expect(me.body.user.credits).toBe(0);
  });
});
