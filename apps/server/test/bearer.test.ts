/**
 * `Authorization: Bearer` authenticates a request by that header alone: session cookies sent
 * alongside it count for nothing, so a junk bearer header (which also skips the CSRF check) cannot
 * let a cookie act from a foreign origin.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topupCodes } from '@proxyhub/db';
import { rawRequest } from './auth-support';
import { adminClient, expectLedgerOk } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const EVIL = 'http://evil.example';
const countCodes = async () => (await server.deps.db.select().from(topupCodes)).length;
const JUNK_BEARERS = ['Bearer junk', 'bearer junk', 'Bearer', 'Bearer a b', `Bearer ${'x'.repeat(64)}`];

async function mintCode(): Promise<string> {
  const r = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: 1, quantity: 1, expiresAt: null });
  expect(r.status).toBe(200);
  return r.body.codes[0]!.code;
}

describe('Authorization: Bearer replaces cookies', () => {
  it('admin cookie + junk bearer + foreign Origin: refused, no code minted (REST and tRPC)', async () => {
    const before = await countCodes();
    for (const authorization of JUNK_BEARERS) {
      const headers = { cookie: admin.cookieHeader(), authorization, origin: EVIL, 'content-type': 'application/json' };
      const viaRest = await rawRequest(server, {
        method: 'POST',
        path: '/admin/codes/create',
        headers,
        body: JSON.stringify({ creditsGB: 100, quantity: 100 }),
      });
      expect({ authorization, status: viaRest.status }).toEqual({ authorization, status: 401 });
      expect(viaRest.json).toMatchObject({ success: false, error: expect.any(String) });
      const viaTrpc = await rawRequest(server, {
        method: 'POST',
        path: '/trpc/admin.createCodes',
        headers,
        body: JSON.stringify({ json: { creditsGB: 100, quantity: 100 } }),
      });
      expect({ authorization, status: viaTrpc.status }).toEqual({ authorization, status: 401 });
      // Reading is refused too: the cookie is not consulted at all.
      const read = await rawRequest(server, { method: 'GET', path: '/admin/users', headers: { cookie: admin.cookieHeader(), authorization } });
      expect({ authorization, status: read.status }).toEqual({ authorization, status: 401 });
    }
    expect(await countCodes()).toBe(before);
    // The same cookie without the header still works from our own origin.
    expect((await admin.get('/admin/users')).status).toBe(200);
  });

  it('admin cookie + a real user API key: the user, who is no admin', async () => {
    const { user } = await signedInUser(server);
    const before = await countCodes();
    const headers = { cookie: admin.cookieHeader(), authorization: `Bearer ${user.apiKey}`, origin: EVIL, 'content-type': 'application/json' };
    const res = await rawRequest(server, { method: 'POST', path: '/admin/codes/create', headers, body: JSON.stringify({ creditsGB: 1, quantity: 1 }) });
    expect(res.status).toBe(403);
    expect(await countCodes()).toBe(before);
  });

  it('a valid API key without cookies works as before, from anywhere', async () => {
    const { user } = await signedInUser(server);
    const code = await mintCode();
    const headers = { authorization: `Bearer ${user.apiKey}` };
    const me = await rawRequest(server, { method: 'GET', path: '/auth/user', headers });
    expect(me).toMatchObject({ status: 200, json: { success: true, user: { id: user.id } } });
    const redeem = await rawRequest(server, {
      method: 'POST',
      path: '/auth/redeem-code',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(redeem).toMatchObject({ status: 200, json: { success: true, credits: 1024 } });
    const trpc = await rawRequest(server, { method: 'GET', path: '/trpc/auth.me', headers });
    expect(trpc.status).toBe(200);
    expect(trpc.text).toContain(user.id);
  });

  it("user A's cookie + user B's API key: acts as B only", async () => {
    const a = await signedInUser(server, 'Cookie Owner');
    const b = await signedInUser(server, 'Key Owner');
    const code = await mintCode();
    const headers = { cookie: a.client.cookieHeader(), authorization: `Bearer ${b.user.apiKey}`, origin: EVIL };
    const me = await rawRequest(server, { method: 'GET', path: '/auth/user', headers });
    expect(me).toMatchObject({ status: 200, json: { user: { id: b.user.id, email: b.email } } });
    const redeem = await rawRequest(server, {
      method: 'POST',
      path: '/auth/redeem-code',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(redeem.status).toBe(200);
    const credits = async (client: HttpClient) => (await client.get<{ user: { credits: number } }>('/auth/user')).body.user.credits;
    const keyed = server.client({ origin: null });
    keyed.bearer = b.user.apiKey;
    expect(await credits(keyed)).toBe(1073741824);
    expect(await credits(a.client)).toBe(0);
    const redeemed = (await server.deps.db.select().from(topupCodes)).find((c) => c.code === code)!;
    expect(redeemed.redeemedBy).toBe(b.user.id);
    // A change through the key changes B's account, never A's.
    const rotate = await rawRequest(server, {
      method: 'POST',
      path: '/auth/rotate-api-key',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(rotate.status).toBe(200);
    const apiKey = async (client: HttpClient) => (await client.get<{ user: { apiKey: string } }>('/auth/user')).body.user.apiKey;
    expect(await apiKey(a.client)).toBe(a.user.apiKey);
    expect((await keyed.get('/auth/user')).status).toBe(401);
    // And A's session is untouched: logging out with B's key does not end it.
    await rawRequest(server, { method: 'POST', path: '/auth/logout', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' });
    expect((await a.client.get('/auth/user')).status).toBe(200);
  });

  it('a non-bearer Authorization header leaves the cookie in charge, CSRF check included', async () => {
    const before = await countCodes();
    const headers = { cookie: admin.cookieHeader(), authorization: 'Basic Zm9vOmJhcg==', origin: EVIL, 'content-type': 'application/json' };
    const res = await rawRequest(server, { method: 'POST', path: '/admin/codes/create', headers, body: JSON.stringify({ creditsGB: 1, quantity: 1 }) });
    expect(res.status).toBe(403);
    expect(await countCodes()).toBe(before);
  });
});
