import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectLedgerOk, internalClient, sessionClient } from './credits-helpers';
import { linkToken, signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

interface Me {
  user: { apiKey: string; proxyUserId: string; proxyPassword: string };
}
const me = async (client: HttpClient) => (await client.get<Me>('/auth/user')).body.user;
const withKey = (key: string) => {
  const c = server.client();
  c.bearer = key;
  return c;
};
const authorize = (proxyUserId: string, password: string) => internalClient(server).gateway.authorize.mutate({ proxyUserId, password });

describe('rotating the API key', () => {
  it('POST /auth/rotate-api-key (session): a new key, shown by /auth/user; the old key is refused at once', async () => {
    const { client, user } = await signedInUser(server);
    expect((await withKey(user.apiKey).get('/auth/user')).status).toBe(200);
    const r = await client.post<{ success: boolean; apiKey: string }>('/auth/rotate-api-key');
    expect(r).toMatchObject({ status: 200, body: { success: true, apiKey: expect.any(String) } });
    expect(Object.keys(r.body).sort()).toEqual(['apiKey', 'success']);
    expect(r.body.apiKey).not.toBe(user.apiKey);
    expect(r.body.apiKey).toHaveLength(user.apiKey.length);
    expect((await me(client)).apiKey).toBe(r.body.apiKey);
    expect(await withKey(user.apiKey).get('/auth/user')).toMatchObject({ status: 401, body: { success: false } });
    expect((await withKey(user.apiKey).post('/auth/rotate-api-key')).status).toBe(401);
    expect((await withKey(r.body.apiKey).get('/auth/user')).status).toBe(200);
  });

  it('with the API key itself as the Bearer token, and over tRPC', async () => {
    const { client, user } = await signedInUser(server);
    const r = await withKey(user.apiKey).post<{ apiKey: string }>('/auth/rotate-api-key');
    expect(r.status).toBe(200);
    expect((await withKey(user.apiKey).get('/auth/user')).status).toBe(401);
    const viaTrpc = await sessionClient(server, client).auth.rotateApiKey.mutate();
    expect(viaTrpc.apiKey).not.toBe(r.body.apiKey);
    expect((await withKey(r.body.apiKey).get('/auth/user')).status).toBe(401);
    expect((await me(withKey(viaTrpc.apiKey))).apiKey).toBe(viaTrpc.apiKey);
  });
});

describe('rotating the proxy password', () => {
  it('POST /auth/rotate-proxy-password and tRPC: the main account gets a new password, the old one is refused', async () => {
    const { client, user } = await signedInUser(server);
    const { batchId, accounts } = await internalClient(server).credits.createBatch.mutate({ accounts: 1, creditsGB: 0.1, usageType: 'shop_proxy_regular' });
    expect((await client.post('/auth/process-batch', { batchId })).status).toBe(200);

    const r = await client.post<{ success: boolean; proxyPassword: string }>('/auth/rotate-proxy-password');
    expect(r).toMatchObject({ status: 200, body: { success: true, proxyPassword: expect.stringMatching(/^[A-Za-z0-9]{16}$/) } });
    expect(Object.keys(r.body).sort()).toEqual(['proxyPassword', 'success']);
    expect(r.body.proxyPassword).not.toBe(user.proxyPassword);
    expect(await me(client)).toMatchObject({ proxyUserId: user.proxyUserId, proxyPassword: r.body.proxyPassword });
    expect((await authorize(user.proxyUserId, user.proxyPassword)).account).toMatchObject({ ok: false, reason: 'bad_credentials' });
    expect((await authorize(user.proxyUserId, r.body.proxyPassword)).account.ok).toBe(true);
    // Batch accounts keep their own credentials.
    expect((await authorize(accounts[0]!.proxyUserId, accounts[0]!.proxyPassword)).account.ok).toBe(true);

    const viaTrpc = await sessionClient(server, client).auth.rotateProxyPassword.mutate();
    expect(viaTrpc.proxyPassword).not.toBe(r.body.proxyPassword);
    expect((await me(client)).proxyPassword).toBe(viaTrpc.proxyPassword);
    expect((await authorize(user.proxyUserId, r.body.proxyPassword)).account.ok).toBe(false);

    const byKey = await withKey(user.apiKey).post<{ proxyPassword: string }>('/auth/rotate-proxy-password');
    expect(byKey.status).toBe(200);
    expect((await me(client)).proxyPassword).toBe(byKey.body.proxyPassword);
  });
});

describe('who may rotate', () => {
  it('needs a user; cookie calls follow the CSRF rules', async () => {
    for (const path of ['/auth/rotate-api-key', '/auth/rotate-proxy-password']) {
      expect(await server.client().post(path)).toMatchObject({ status: 401, body: { success: false, error: 'Not authenticated' } });
      expect((await withKey('not-a-key').post(path)).status).toBe(401);
    }
    const { client, user } = await signedInUser(server);
    const evil = await client.post('/auth/rotate-api-key', {}, { origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    const form = await client.post('/auth/rotate-proxy-password', 'x=1', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(403);
    expect(await me(client)).toMatchObject({ apiKey: user.apiKey, proxyPassword: user.proxyPassword });
  });
});

describe('the password-reset notice', () => {
  it('tells the user how to rotate the API key and the proxy password', async () => {
    const { email } = await signedInUser(server);
    expect((await server.client().post('/auth/forgot-password', { email })).status).toBe(200);
    await server.settle();
    const token = linkToken(
      server
        .mails(email)
        .filter((m) => m.subject === 'Reset your password')
        .at(-1)!,
    );
    expect((await server.client().post('/auth/reset-password', { token, password: 'Another123' })).status).toBe(200);
    await server.settle();
    const notice = server
      .mails(email)
      .filter((m) => m.subject === 'Your password was changed')
      .at(-1)!;
    for (const part of [notice.text, notice.html]) {
      expect(part).toContain('Settings');
      expect(part).toContain('POST /auth/rotate-api-key');
      expect(part).toContain('POST /auth/rotate-proxy-password');
    }
  });
});
