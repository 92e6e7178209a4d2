/**
 * Admin roles: every admin path (REST and tRPC) walked with each role. Owners use everything;
 * finance and support only what the matrix below gives them, and everything else answers 403
 * `Not allowed for your role`. A path missing from the matrix is expected to be owner-only, so a
 * new procedure that forgets to name its roles stays closed.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLES, type AdminRole } from '@proxyhub/core';
import { topupCodes } from '@proxyhub/db';
import { restRoutes } from '../src/rest';
import { appRouter } from '@proxyhub/api';
import { ADMIN_PASSWORD, ADMIN_USERNAME, adminClient, internalClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

const FORBIDDEN = { success: false, error: 'Not allowed for your role', code: 'NOT_ALLOWED_FOR_ROLE' };

/** Roles besides owner that each REST path admits. */
const REST_MATRIX: Record<string, AdminRole[]> = {
  'POST /admin/codes/create': ['support'],
  'GET /admin/users': ['support', 'finance'],
  'GET /admin/users/:id': ['support', 'finance'],
  'GET /admin/users/:id/connections': ['support', 'finance'],
  'GET /admin/abuse': ['support', 'finance'],
  'POST /admin/users/:id/suspend': ['support'],
  'POST /admin/users/:id/unsuspend': ['support'],
  'POST /admin/users/:id/adjust': ['support'],
  'GET /admin/codes': ['support'],
  'POST /admin/codes/:code/revoke': ['support'],
  'GET /admin/audit-log': ['support', 'finance'],
  'GET /admin/usage/global': ['finance'],
  'GET /admin/usage/history': ['finance'],
  'GET /admin/payments': ['finance'],
  'POST /admin/promotions': ['finance'],
  'GET /admin/promotions': ['finance'],
  'PATCH /admin/promotions/:code': ['finance'],
  'PUT /admin/pricing': ['finance'],
  'PATCH /admin/users/:id': ['finance'],
  'GET /admin/telegram/link': ['support', 'finance'],
  'POST /admin/telegram/link': ['support', 'finance'],
  'DELETE /admin/telegram/link': ['support', 'finance'],
  'GET /admin/alerts': ['finance'],
  'GET /admin/seller': ['finance'],
  'GET /admin/plans': ['finance'],
  'POST /admin/plans': ['finance'],
  'PATCH /admin/plans/:id': ['finance'],
  'DELETE /admin/plans/:id': ['finance'],
};

/** The same for the tRPC procedures (admin.* and the other admin ones). */
const TRPC_MATRIX: Record<string, AdminRole[]> = {
  'admin.createCodes': ['support'],
  'admin.users': ['support', 'finance'],
  'admin.user': ['support', 'finance'],
  'admin.userConnections': ['support', 'finance'],
  'admin.userConnectionsAll': ['support', 'finance'],
  'admin.abuseLookup': ['support', 'finance'],
  'admin.suspendUser': ['support'],
  'admin.unsuspendUser': ['support'],
  'admin.adjustUserBalance': ['support'],
  'admin.codes': ['support'],
  'admin.revokeCode': ['support'],
  'admin.auditLog': ['support', 'finance'],
  'admin.globalUsage': ['finance'],
  'admin.globalHistory': ['finance'],
  'admin.payments': ['finance'],
  'admin.createPromotion': ['finance'],
  'admin.promotions': ['finance'],
  'admin.updatePromotion': ['finance'],
  'admin.setPricing': ['finance'],
  'admin.setUserPrice': ['finance'],
  'admin.patchUser': ['finance'],
  'adminAlerts.list': ['finance'],
  'admin.seller': ['finance'],
  'admin.plans': ['finance'],
  'admin.createPlan': ['finance'],
  'admin.updatePlan': ['finance'],
  'admin.deletePlan': ['finance'],
};
/** Every admin, whatever its role: its own session and second factor. */
const SELF_SERVICE = new Set(['admin.login', 'admin.logout', 'admin.me', 'admin.telegramStatus', 'admin.telegramLink', 'admin.telegramUnlink']);
const selfService = (path: string) => SELF_SERVICE.has(path) || path.startsWith('twoFactor.admin');

const admits = (matrix: Record<string, AdminRole[]>, key: string, role: AdminRole) => role === 'owner' || (matrix[key] ?? []).includes(role);

let server: TestServer;
const clients = {} as Record<AdminRole, HttpClient>;
const ids = {} as Record<AdminRole, string>;

beforeAll(async () => {
  server = await startTestServer();
  clients.owner = await adminClient(server);
  for (const role of ['finance', 'support'] as const) {
    const username = `${role}-${Date.now().toString(36)}`;
    const created = await clients.owner.post<{ admin: { id: string; role: string } }>('/admin/admins', { username, password: 'Role-Password-1', role });
    expect(created).toMatchObject({ status: 201, body: { admin: { role } } });
    ids[role] = created.body.admin.id;
    clients[role] = server.client();
    expect((await clients[role].post('/auth/admin/login', { username, password: 'Role-Password-1' })).status).toBe(200);
  }
});
afterAll(() => server.close());

const fill = (url: string) => url.replace(':id', '00000000-0000-4000-8000-000000000000').replace(':code', 'NOPE0000');

describe('every admin REST path with each role', () => {
  const paths = restRoutes.filter((r) => r.url.startsWith('/admin/'));
  it.each(ADMIN_ROLES)('%s', async (role) => {
    expect(paths.length).toBeGreaterThan(20);
    for (const r of paths) {
      const key = `${r.method} ${r.url}`;
      const res = await clients[role].request(r.method, fill(r.url), r.method === 'GET' || r.method === 'DELETE' ? undefined : {});
      if (admits(REST_MATRIX, key, role)) expect({ key, res: res.body }).not.toEqual({ key, res: FORBIDDEN });
      else expect({ key, status: res.status, body: res.body }).toEqual({ key, status: 403, body: FORBIDDEN });
    }
  });
});

describe('every admin tRPC procedure with each role', () => {
  // tRPC keeps every procedure under its dotted path (`admin.users`).
  const all = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>);
  const call = (client: HttpClient, path: string, type: string) =>
    type === 'query' ? client.get(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`) : client.post(`/trpc/${path}`, { json: {} });
  const messageOf = (body: unknown) => (body as { error?: { json?: { message?: string } } }).error?.json?.message;

  it.each(ADMIN_ROLES)('%s', async (role) => {
    // The admin procedures, wherever they live, are the ones that tell a stranger to sign in as an admin.
    const anonymous = server.client();
    const walked: string[] = [];
    for (const [path, proc] of all) {
      if (selfService(path)) continue;
      const stranger = await call(anonymous, path, proc._def.type);
      if (stranger.status !== 401 || messageOf(stranger.body) !== 'Admin login required') continue;
      walked.push(path);
      const res = await call(clients[role], path, proc._def.type);
      const message = messageOf(res.body);
      if (admits(TRPC_MATRIX, path, role)) expect({ path, message }).not.toEqual({ path, message: FORBIDDEN.error });
      else expect({ path, status: res.status, message }).toEqual({ path, status: 403, message: FORBIDDEN.error });
    }
    const expected = all.map(([p]) => p).filter((p) => p.startsWith('admin.') && !selfService(p));
    expect(walked).toEqual(expect.arrayContaining([...expected, 'credits.createBatch']));
  });

  it('the internal key is refused nothing for its role', async () => {
    const r = await internalClient(server).admin.admins.query();
    expect(r.admins.map((a) => a.role)).toEqual(expect.arrayContaining(['owner', 'finance', 'support']));
  });
});

describe('roles', () => {
  it('me and the admin list show each role; a new admin is support unless told', async () => {
    for (const role of ADMIN_ROLES) expect((await clients[role].get('/auth/admin/me')).body).toMatchObject({ success: true, role });
    const username = `plain-${Date.now().toString(36)}`;
    const plain = await clients.owner.post<{ admin: { role: string } }>('/admin/admins', { username, password: 'Role-Password-1' });
    expect(plain.body.admin.role).toBe('support');
    const list = await clients.owner.get<{ admins: { username: string; role: string }[] }>('/admin/admins');
    expect(list.body.admins.find((a) => a.username === ADMIN_USERNAME)!.role).toBe('owner');
    expect(list.body.admins.find((a) => a.username === username)!.role).toBe('support');
    const bad = await clients.owner.post<{ error: string }>('/admin/admins', { username: `x${username}`, password: 'Role-Password-1', role: 'boss' });
    expect(bad).toMatchObject({ status: 400, body: { error: 'Role must be one of owner, finance, support' } });
  });

  it('support adjusts a balance by at most 10 GB per action', async () => {
    const { user } = await signedInUser(server);
    const adjust = (deltaGB: number) => clients.support.post<{ error?: string }>(`/admin/users/${user.id}/adjust`, { deltaGB, reason: 'goodwill' });
    expect((await adjust(10)).status).toBe(200);
    expect((await adjust(-10)).status).toBe(200);
    expect(await adjust(10.01)).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await adjust(-11)).toMatchObject({ status: 403, body: FORBIDDEN });
    expect((await clients.owner.post(`/admin/users/${user.id}/adjust`, { deltaGB: 50, reason: 'bulk' })).status).toBe(200);
    expect(await clients.finance.post(`/admin/users/${user.id}/adjust`, { deltaGB: 1, reason: 'x' })).toMatchObject({ status: 403, body: FORBIDDEN });
  });

  it('support mints codes worth at most 10 GB per call and per UTC day; over it is a 403 and no code', async () => {
    const mine = async () => (await server.deps.db.select().from(topupCodes).where(eq(topupCodes.createdByAdminId, ids.support))).length;
    const mint = (client: HttpClient, creditsGB: number, quantity: number) =>
      client.post<{ codes?: { code: string }[]; error?: string }>('/admin/codes/create', { creditsGB, quantity, expiresAt: null });
    const before = await mine();
    expect(await mint(clients.support, 100_000, 100)).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await mint(clients.support, 5, 3)).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await mine()).toBe(before);
    expect((await mint(clients.support, 4, 2)).status).toBe(200);
    // The day's total counts: 8 GB so far, so 2.1 GB more is over and 2 GB is the rest.
    expect(await mint(clients.support, 2.1, 1)).toMatchObject({ status: 403, body: FORBIDDEN });
    // Concurrent calls cannot each see room that only one of them has.
    const raced = await Promise.all([1, 2, 3, 4, 5].map(() => mint(clients.support, 1, 1)));
    expect(raced.filter((r) => r.status === 200)).toHaveLength(2);
    expect(raced.filter((r) => r.status === 403).map((r) => r.body)).toEqual(Array(3).fill(FORBIDDEN));
    expect(await mint(clients.support, 0.1, 1)).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await mine()).toBe(before + 4);
    const trpc = await clients.support.post<{ error?: { json?: { message?: string } } }>('/trpc/admin.createCodes', {
      json: { creditsGB: 1, quantity: 1, expiresAt: null },
    });
    expect({ status: trpc.status, message: trpc.body.error?.json?.message }).toEqual({ status: 403, message: FORBIDDEN.error });
    // Owners are unchanged: 100 codes of 1,000 GB in one call.
    const owner = await mint(clients.owner, 1000, 100);
    expect(owner.status).toBe(200);
    expect(owner.body.codes).toHaveLength(100);
    // Promotions (multi-use credit) are not support's at all; gift codes move a user's own balance.
    expect(await clients.support.post('/admin/promotions', { code: 'SUPPORTMINT1', kind: 'credit', creditsGB: 100, maxRedemptions: 1000 })).toMatchObject({
      status: 403,
      body: FORBIDDEN,
    });
  });

  it('PATCH /admin/users/:id: finance sets a user’s own rate, only an owner exempts them from the target policy', async () => {
    const { user } = await signedInUser(server);
    const patch = (client: HttpClient, body: object) => client.request<{ error?: string }>('PATCH', `/admin/users/${user.id}`, body);
    expect(await patch(clients.finance, { pricePerGbCents: 80 })).toMatchObject({ status: 200, body: { success: true, user: { pricePerGbCents: 80 } } });
    expect(await patch(clients.finance, { targetPolicyExempt: true })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await patch(clients.finance, { pricePerGbCents: 70, targetPolicyExempt: true })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await patch(clients.owner, { pricePerGbCents: null, targetPolicyExempt: true })).toMatchObject({
      status: 200,
      body: { success: true, user: { pricePerGbCents: null, targetPolicyExempt: true } },
    });
    expect(await patch(clients.owner, {})).toMatchObject({ status: 400, body: { error: 'Give a price per GB or a target policy exemption to change' } });
    expect(await patch(clients.support, { pricePerGbCents: 80 })).toMatchObject({ status: 403, body: FORBIDDEN });
  });

  it('a role change takes effect on the next request; the last owner cannot be demoted or disabled', async () => {
    const patch = (id: string, role: string) => clients.owner.request<{ error?: string; admin?: { role: string } }>('PATCH', `/admin/admins/${id}`, { role });
    expect((await clients.support.get('/admin/payments')).status).toBe(403);
    expect(await patch(ids.support, 'finance')).toMatchObject({ status: 200, body: { success: true, admin: { role: 'finance' } } });
    expect((await clients.support.get('/admin/payments')).status).toBe(200);
    expect(await clients.support.get('/admin/codes')).toMatchObject({ status: 403, body: FORBIDDEN });
    expect((await patch(ids.support, 'support')).status).toBe(200);
    expect((await patch(ids.support, 'king')).body.error).toBe('Role must be one of owner, finance, support');

    const list = await clients.owner.get<{ admins: { id: string; username: string }[] }>('/admin/admins');
    const ownerId = list.body.admins.find((a) => a.username === ADMIN_USERNAME)!.id;
    expect(await patch(ownerId, 'finance')).toMatchObject({ status: 409, body: { error: 'The last owner cannot be removed or demoted' } });
    const disable = await clients.owner.post(`/admin/admins/${ownerId}/disable`, {});
    expect(disable).toMatchObject({ status: 409, body: { error: 'The last owner cannot be removed or demoted' } });

    // With a second owner, the first may step down; then the second is the last.
    expect((await patch(ids.finance, 'owner')).status).toBe(200);
    expect((await patch(ownerId, 'support')).status).toBe(200);
    expect(await clients.owner.get('/admin/admins')).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await clients.finance.request('PATCH', `/admin/admins/${ids.finance}`, { role: 'finance' })).toMatchObject({
      status: 409,
      body: { error: 'The last owner cannot be removed or demoted' },
    });
    expect((await clients.finance.request('PATCH', `/admin/admins/${ownerId}`, { role: 'owner' })).status).toBe(200);
    expect((await clients.owner.get('/admin/admins')).status).toBe(200);
    expect((await server.client().post('/auth/admin/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD })).status).toBe(200);
  });
});
