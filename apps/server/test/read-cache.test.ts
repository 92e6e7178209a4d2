/**
 * Sessions, API keys and the user's view are cached per process for a second (packages/api
 * read-cache.ts). What must not change: a revocation is refused at once by the process that made it
 * and within 2 s by every other server process. The second server here shares only the database
 * with the first, as a second server process behind the load balancer would.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ServerParts } from '../src/server';
import { adminClient, HttpClient, signedInUser, startTestServer, type TestServer } from './helpers';

let a: TestServer;
let b: ServerParts;
let bUrl: string;

beforeAll(async () => {
  a = await startTestServer();
  b = await createServer({ config: a.config, database: a.database, logLevel: 'silent' });
  await b.app.listen({ host: '127.0.0.1', port: 0 });
  bUrl = `http://127.0.0.1:${(b.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  // The database is the first server's: close only the second one's app.
  await b.app.close();
  await a.close();
});

/** The same browser (cookies) or tool (bearer key) pointed at the second server. */
function onB(client: HttpClient): HttpClient {
  const other = new HttpClient(bUrl, a.config.publicUrl);
  for (const [k, v] of client.cookies) other.cookies.set(k, v);
  other.bearer = client.bearer;
  return other;
}

function withKey(url: string, key: string): HttpClient {
  const c = new HttpClient(url, a.config.publicUrl);
  c.bearer = key;
  return c;
}

/** Polls until the request is refused; answers how long that took. */
async function msUntilRefused(client: HttpClient, path = '/auth/user'): Promise<number> {
  const start = Date.now();
  for (;;) {
    const r = await client.get(path);
    if (r.status === 401 || r.status === 403) return Date.now() - start;
    if (Date.now() - start > 5000) throw new Error(`still ${r.status} after 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('revocation with per-process caches', () => {
  it('a logged-out session: refused at once where it ended, within 2 s on the other server', async () => {
    const { client } = await signedInUser(a);
    const elsewhere = onB(client);
    // Both servers have just read (and cached) the session.
    expect((await client.get('/auth/user')).status).toBe(200);
    expect((await elsewhere.get('/auth/user')).status).toBe(200);
    const cookies = new Map(client.cookies);

    expect((await client.post('/auth/logout')).status).toBe(200);
    const replay = a.client();
    for (const [k, v] of cookies) replay.cookies.set(k, v);
    expect((await replay.get('/auth/user')).status).toBe(401);
    expect(await msUntilRefused(elsewhere)).toBeLessThan(2000);
  });

  it('a deleted API key: refused at once where it was deleted, within 2 s on the other server', async () => {
    const { client } = await signedInUser(a);
    const made = await client.post<{ key: { id: string }; secret: string }>('/api/keys', { name: 'leaving', scopes: ['usage:read'] });
    expect(made.status).toBe(201);
    const here = withKey(a.url, made.body.secret);
    const there = withKey(bUrl, made.body.secret);
    expect((await here.get('/api/usage')).status).toBe(200);
    expect((await there.get('/api/usage')).status).toBe(200);

    expect((await client.request('DELETE', `/api/keys/${made.body.key.id}`)).status).toBe(200);
    expect((await here.get('/api/usage')).status).toBe(401);
    expect(await msUntilRefused(there, '/api/usage')).toBeLessThan(2000);
  });

  it('a rotated API key: refused at once where it was rotated, within 2 s on the other server', async () => {
    const { user } = await signedInUser(a);
    const here = withKey(a.url, user.apiKey);
    const there = withKey(bUrl, user.apiKey);
    expect((await here.get('/auth/user')).status).toBe(200);
    expect((await there.get('/auth/user')).status).toBe(200);

    const rotated = await here.post<{ apiKey: string }>('/auth/rotate-api-key');
    expect(rotated.status).toBe(200);
    expect((await here.get('/auth/user')).status).toBe(401);
    expect(await msUntilRefused(there)).toBeLessThan(2000);
    expect((await withKey(bUrl, rotated.body.apiKey).get('/auth/user')).status).toBe(200);
  });

  it('a suspension: the session and the API key are refused at once by the admin’s server, within 2 s by the other', async () => {
    const { client, user } = await signedInUser(a);
    const admin = await adminClient(a);
    const elsewhere = onB(client);
    const keyThere = withKey(bUrl, user.apiKey);
    for (const c of [client, elsewhere, keyThere]) expect((await c.get('/auth/user')).status).toBe(200);

    expect((await admin.post(`/admin/users/${user.id}/suspend`, { reason: 'abuse report' })).status).toBe(200);
    expect((await client.get('/auth/user')).status).toBe(401);
    expect((await withKey(a.url, user.apiKey).get('/auth/user')).status).toBe(403);
    const [sessionMs, keyMs] = await Promise.all([msUntilRefused(elsewhere), msUntilRefused(keyThere)]);
    expect(sessionMs).toBeLessThan(2000);
    expect(keyMs).toBeLessThan(2000);
  });

  it('a change made on one server is what the next read on that server shows (no stale balance)', async () => {
    const { client, user } = await signedInUser(a);
    const admin = await adminClient(a);
    expect((await client.get<{ user: { credits: number } }>('/auth/user')).body.user.credits).toBe(0);
    expect((await admin.post(`/admin/users/${user.id}/adjust`, { deltaGB: 1, reason: 'goodwill' })).status).toBe(200);
    const after = await client.get<{ user: { credits: number } }>('/auth/user');
    expect(after.body.user.credits).toBeGreaterThan(0);
  });
});
