import { TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@proxyhub/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, signedInUser, STRONG_PASSWORD, startTestServer, type TestServer } from './helpers';
import { rawRequest, sessionRows, trpcFor } from './auth-support';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A signed-in browser whose requests we shape by hand. */
async function victim() {
  const { client, user, email } = await signedInUser(server);
  const cookie = client.cookieHeader();
  const stillSignedIn = async () => (await client.get('/auth/user')).status === 200 && (await sessionRows(server, user.id)).length === 1;
  return { client, user, email, cookie, stillSignedIn };
}

const FOREIGN = 'https://evil.example';

describe('CSRF on cookie-authenticated mutations', () => {
  const attacks: [string, Record<string, string>, string][] = [
    ['text/plain (a cross-site form)', { 'content-type': 'text/plain', origin: 'http://localhost:3000' }, '{}'],
    ['form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:3000' }, 'a=b'],
    ['a foreign Origin', { 'content-type': 'application/json', origin: FOREIGN }, '{}'],
    ['Origin null', { 'content-type': 'application/json', origin: 'null' }, '{}'],
    ['Sec-Fetch-Site: cross-site', { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' }, '{}'],
    ['Sec-Fetch-Site: same-site', { 'content-type': 'application/json', 'sec-fetch-site': 'same-site' }, '{}'],
    ['neither Origin nor Sec-Fetch-Site', { 'content-type': 'application/json' }, '{}'],
    ['a non-bearer Authorization header', { 'content-type': 'application/json', authorization: 'Basic Zm9vOmJhcg==' }, '{}'],
  ];

  for (const path of ['/auth/logout', '/trpc/auth.logout']) {
    it.each(attacks)(`${path}: refuses %s with 403 and changes nothing`, async (_what, headers, body) => {
      const v = await victim();
      const res = await rawRequest(server, { method: 'POST', path, headers: { ...headers, cookie: v.cookie }, body });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ success: false, error: expect.stringMatching(/^Request blocked/) });
      expect(await v.stillSignedIn()).toBe(true);
    });
  }

  it('accepts the same request with the right Origin, or Sec-Fetch-Site: same-origin', async () => {
    const a = await victim();
    const res = await rawRequest(server, {
      method: 'POST',
      path: '/auth/logout',
      headers: { 'content-type': 'application/json', origin: server.config.publicUrl, cookie: a.cookie },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(await a.stillSignedIn()).toBe(false);

    const b = await victim();
    const res2 = await rawRequest(server, {
      method: 'POST',
      path: '/trpc/auth.logout',
      headers: { 'content-type': 'application/json; charset=utf-8', 'sec-fetch-site': 'same-origin', cookie: b.cookie },
      body: '{}',
    });
    expect(res2.status).toBe(200);
    expect(await b.stillSignedIn()).toBe(false);
  });

  it('the tRPC client from our own origin works; from a foreign origin it is refused', async () => {
    const v = await victim();
    const foreign = new HttpClient(server.url, FOREIGN);
    for (const [k, val] of v.client.cookies) foreign.cookies.set(k, val);
    const err = (await trpcFor(server, foreign)
      .auth.logout.mutate()
      .catch((e: unknown) => e)) as TRPCClientError<AppRouter>;
    expect(err).toBeInstanceOf(TRPCClientError);
    expect((err.meta?.response as Response | undefined)?.status).toBe(403);
    expect(await v.stillSignedIn()).toBe(true);
    await expect(trpcFor(server, v.client).auth.logout.mutate()).resolves.toEqual({ message: 'Logged out' });
    expect(await v.stillSignedIn()).toBe(false);
  });

  it('GET requests are not mutations and pass without Origin', async () => {
    const v = await victim();
    const res = await rawRequest(server, { method: 'GET', path: '/auth/user', headers: { cookie: v.cookie } });
    expect(res.status).toBe(200);
  });

  it('a bearer-key call needs no Origin and no cookie', async () => {
    const v = await victim();
    const key = new HttpClient(server.url, null);
    key.bearer = v.user.apiKey;
    const res = await key.post('/auth/logout');
    expect(res.status).toBe(200);
    // The bearer call carries no ambient authority: the browser's session is untouched.
    expect(await v.stillSignedIn()).toBe(true);
    const trpc = trpcFor(server, key);
    await expect(trpc.auth.me.query()).resolves.toMatchObject({ id: v.user.id });
  });
});

describe('login CSRF (no cookie yet)', () => {
  it('a cross-site form cannot sign the browser into an attacker account', async () => {
    const { email } = await signedInUser(server);
    const body = JSON.stringify({ email, password: STRONG_PASSWORD });
    for (const path of ['/auth/login', '/trpc/auth.login']) {
      for (const headers of <Record<string, string>[]>[
        { 'content-type': 'text/plain', origin: FOREIGN },
        { 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
        { 'content-type': 'application/x-www-form-urlencoded', origin: FOREIGN },
        { 'content-type': 'application/json', origin: FOREIGN },
      ]) {
        const res = await rawRequest(server, { method: 'POST', path, headers, body });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(String(res.headers['set-cookie'] ?? '')).not.toMatch(/session=[^;]/);
      }
    }
  });

  it('anonymous calls without Origin (scripts, curl) still work', async () => {
    const { email } = await signedInUser(server);
    const res = await rawRequest(server, {
      method: 'POST',
      path: '/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: STRONG_PASSWORD }),
    });
    expect(res.status).toBe(200);
  });
});

describe('POST /auth/logout without a body or Content-Type', () => {
  // Filled in with the server's own origin when the test runs.
  const OWN = 'own-origin';
  it('signs out from our own Origin or with Sec-Fetch-Site: same-origin (chunked or Content-Length: 0)', async () => {
    const a = await victim();
    const res = await rawRequest(server, { method: 'POST', path: '/auth/logout', headers: { origin: server.config.publicUrl, cookie: a.cookie } });
    expect(res).toMatchObject({ status: 200, json: { success: true, message: 'Logged out' } });
    expect(String(res.headers['set-cookie'])).toMatch(/session=;/);
    expect(await a.stillSignedIn()).toBe(false);

    const b = await victim();
    const res2 = await rawRequest(server, {
      method: 'POST',
      path: '/auth/logout',
      headers: { 'sec-fetch-site': 'same-origin', 'content-length': '0', cookie: b.cookie },
    });
    expect(res2.status).toBe(200);
    expect(await b.stillSignedIn()).toBe(false);

    // What a browser's fetch('/auth/logout', { method: 'POST' }) sends.
    const c = await victim();
    const res3 = await fetch(`${server.url}/auth/logout`, { method: 'POST', headers: { origin: server.config.publicUrl, cookie: c.cookie } });
    expect(res3.status).toBe(200);
    expect(await c.stillSignedIn()).toBe(false);
  });

  const refused: [string, Record<string, string>][] = [
    ['a foreign Origin', { origin: FOREIGN }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
    ['neither Origin nor Sec-Fetch-Site', {}],
    ['an empty form (a Content-Type, no body)', { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0', origin: OWN }],
  ];
  it.each(refused)('is still refused with %s', async (_what, headers) => {
    const v = await victim();
    const h: Record<string, string> = { ...headers, cookie: v.cookie };
    if (h.origin === OWN) h.origin = server.config.publicUrl;
    const res = await rawRequest(server, { method: 'POST', path: '/auth/logout', headers: h });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ success: false, error: expect.stringMatching(/^Request blocked/) });
    expect(await v.stillSignedIn()).toBe(true);
  });

  it('a body without a Content-Type is not body-less: refused', async () => {
    const v = await victim();
    const res = await rawRequest(server, { method: 'POST', path: '/auth/logout', headers: { origin: server.config.publicUrl, cookie: v.cookie }, body: '{}' });
    expect(res.status).toBe(403);
    expect(await v.stillSignedIn()).toBe(true);
  });
});
