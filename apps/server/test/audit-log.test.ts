/**
 * The audit log: admin sign-ins (failed too), admin actions and data-changing internal-key calls
 * are recorded with actor, source address, target and input (secrets removed); admins and internal
 * tools read it; nothing edits or deletes it.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog } from '@proxyhub/db';
import { listRoutes } from '../src/app';
import { ADMIN_PASSWORD, ADMIN_USERNAME, adminClient, internalClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer({ trustProxy: true });
  admin = await adminClient(server);
});
afterAll(() => server.close());

type Entry = { id: string; at: string; actor: string; action: string; target: string | null; sourceAddress: string; changes: unknown; reason: string | null };
type Page = { entries: Entry[]; total: number };

const internal = () => {
  const c = server.client({ origin: null });
  c.bearer = server.config.internalApiKey;
  return c;
};

describe('audit log', () => {
  it('records admin sign-ins, failed ones too, with the source address', async () => {
    const from = server.client({ ip: '203.0.113.7' });
    expect((await from.post('/auth/admin/login', { username: ADMIN_USERNAME, password: 'wrong-password-1' })).status).toBe(401);
    expect((await from.post('/auth/admin/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD })).status).toBe(200);
    const r = await internal().get<Page>(`/admin/audit-log?target=admin:${ADMIN_USERNAME}`);
    expect(r.status).toBe(200);
    const mine = r.body.entries.filter((e) => e.sourceAddress === '203.0.113.7');
    expect(mine.map((e) => [e.action, e.actor])).toEqual([
      ['admin.login', `admin:${ADMIN_USERNAME}`],
      ['admin.login.failed', 'anonymous'],
    ]);
    expect(JSON.stringify(r.body)).not.toContain('wrong-password-1');
  });

  it('records admin and internal changes with their input, never the codes minted; not reads or gateway metering', async () => {
    const minted = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: 1.5, quantity: 2, expiresAt: null });
    expect(minted.status).toBe(200);
    await internalClient(server).credits.createBatch.mutate({ accounts: 1, creditsGB: 1, usageType: 'shop_proxy_admin' });
    await admin.get('/admin/users');
    const { user } = await signedInUser(server);
    await internalClient(server).gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });

    const byAdmin = await internal().get<Page>(`/admin/audit-log?actor=admin:${ADMIN_USERNAME}&action=admin.createCodes`);
    expect(byAdmin.body.entries[0]).toMatchObject({
      actor: `admin:${ADMIN_USERNAME}`,
      action: 'admin.createCodes',
      changes: { input: { creditsGB: 1.5, quantity: 2 } },
    });
    const log = JSON.stringify((await internal().get<Page>('/admin/audit-log?pageSize=200')).body);
    for (const c of minted.body.codes) expect(log).not.toContain(c.code);
    const byInternal = await admin.get<Page>('/admin/audit-log?actor=internal');
    expect(byInternal.body.entries.map((e) => e.action)).toContain('credits.createBatch');
    expect(log).not.toContain('gateway.');
    expect(log).not.toContain('admin.users');
  });

  it('pages and refuses bad filters; users, API keys and anonymous callers are refused', async () => {
    const r = await admin.get<Page & { page: number; pageSize: number }>('/admin/audit-log?page=1&pageSize=1');
    expect(r.body).toMatchObject({ page: 1, pageSize: 1, entries: [expect.any(Object)] });
    expect(r.body.total).toBeGreaterThan(1);
    expect((await admin.get<{ error: string }>('/admin/audit-log?pageSize=201')).body.error).toBe('Page size must be at most 200');
    const { client, user } = await signedInUser(server);
    expect((await client.get('/admin/audit-log')).status).toBe(403);
    const key = server.client({ origin: null });
    key.bearer = user.apiKey;
    expect((await key.get('/admin/audit-log')).status).toBe(403);
    expect((await server.client().get('/admin/audit-log')).status).toBe(401);
  });

  it('cannot be edited, deleted or truncated: no path does it and the database refuses', async () => {
    const writes = listRoutes(server.app).filter((r) => r.url.includes('audit') && r.method !== 'GET' && r.method !== 'HEAD');
    expect(writes).toEqual([]);
    const before = (await server.deps.db.select().from(auditLog)).length;
    expect(before).toBeGreaterThan(0);
    const refusal = async (q: ReturnType<typeof sql>) => {
      const err = await server.deps.db.execute(q).then(
        () => null,
        (e: Error & { cause?: Error }) => e,
      );
      return String(err?.cause?.message ?? err?.message);
    };
    expect(await refusal(sql`UPDATE audit_log SET reason = 'changed'`)).toContain('audit_log is append-only');
    expect(await refusal(sql`DELETE FROM audit_log`)).toContain('audit_log is append-only');
    expect(await refusal(sql`TRUNCATE audit_log`)).toContain('audit_log is append-only');
    expect((await server.deps.db.select().from(auditLog)).length).toBe(before);
  });
});
