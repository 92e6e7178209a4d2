/**
 * Two-factor sign-in over HTTP: setup and enable with a TOTP code, sign-in stops at a pending
 * login (no session) and finishes with a code or a recovery code, each accepted once; wrong codes
 * are limited; disable; the same for admins, and ADMIN_REQUIRE_2FA makes admins set it up first.
 */
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, ADMIN_USERNAME, adminClient } from './credits-helpers';
import { signedInUser, startTestServer, STRONG_PASSWORD, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const totp = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
/** A code for the next 30 s step: a fresh step, as a code typed half a minute later would be. */
const nextCode = (secret: string) => totp(secret).generate({ timestamp: Date.now() + 30_000 });
const cookieNames = (r: { headers: Headers }) => r.headers.getSetCookie().map((c) => c.split('=')[0]);

async function enable(client: HttpClient, base = '/auth/2fa') {
  const setup = await client.post<{ secret: string; otpauthUrl: string; qrCodeDataUrl: string }>(`${base}/setup`, {});
  expect(setup.status).toBe(200);
  expect(setup.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\/ProxyHub:.+\?.*secret=/);
  expect(setup.body.qrCodeDataUrl).toMatch(/^data:image\/png;base64,/);
  expect((await client.post<{ error: string }>(`${base}/enable`, { code: '000000' })).body.error).toBe('Invalid code');
  const on = await client.post<{ recoveryCodes: string[] }>(`${base}/enable`, { code: totp(setup.body.secret).generate() });
  expect(on.status).toBe(200);
  expect(on.body.recoveryCodes).toHaveLength(10);
  return { secret: setup.body.secret, recoveryCodes: on.body.recoveryCodes };
}

describe('two-factor sign-in for users', () => {
  it('login stops at the code step without a session; a code finishes it once; a replay is refused', async () => {
    const { client, email } = await signedInUser(server);
    const { secret, recoveryCodes } = await enable(client);
    const stored = await server.deps.db.query.recoveryCodes.findMany();
    expect(JSON.stringify(stored)).not.toContain(recoveryCodes[0]!.replace('-', ''));

    const browser = server.client();
    const first = await browser.post<Record<string, unknown>>('/auth/login', { email, password: STRONG_PASSWORD });
    expect(first).toMatchObject({ status: 200, body: { success: false, requiresTwoFactor: true } });
    expect(cookieNames(first)).toEqual(['pending_2fa']);
    expect(first.headers.getSetCookie()[0]).toMatch(/HttpOnly/i);
    expect((await browser.get('/auth/user')).status).toBe(401);

    const code = nextCode(secret);
    const done = await browser.post<{ success: boolean; user: { email: string } }>('/auth/login/2fa', { code });
    expect(done).toMatchObject({ status: 200, body: { success: true, user: { email } } });
    expect((await browser.get('/auth/user')).status).toBe(200);

    // The same code again, in a new sign-in within its window: refused.
    const again = server.client();
    await again.post('/auth/login', { email, password: STRONG_PASSWORD });
    expect((await again.post<{ error: string }>('/auth/login/2fa', { code })).body.error).toBe('Invalid code');
    // A recovery code works once.
    expect((await again.post('/auth/login/2fa', { code: recoveryCodes[0]!.toLowerCase() })).status).toBe(200);
    const third = server.client();
    await third.post('/auth/login', { email, password: STRONG_PASSWORD });
    expect((await third.post<{ error: string }>('/auth/login/2fa', { code: recoveryCodes[0] })).body.error).toBe('Invalid code');
    expect((await server.client().post<{ error: string }>('/auth/login/2fa', { code: '123456' })).body.error).toBe('Your sign-in expired: sign in again');
  });

  it('two concurrent uses of one code: exactly one succeeds', async () => {
    const { client, email } = await signedInUser(server);
    const { secret } = await enable(client);
    const a = server.client();
    const b = server.client();
    await a.post('/auth/login', { email, password: STRONG_PASSWORD });
    await b.post('/auth/login', { email, password: STRONG_PASSWORD });
    const code = nextCode(secret);
    const results = await Promise.all([a.post('/auth/login/2fa', { code }), b.post('/auth/login/2fa', { code })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('five wrong codes void the pending sign-in; disable needs the password and a code', async () => {
    const { client, email } = await signedInUser(server);
    const { secret } = await enable(client);
    const c = server.client();
    await c.post('/auth/login', { email, password: STRONG_PASSWORD });
    for (let i = 0; i < 5; i++) expect((await c.post('/auth/login/2fa', { code: '000000' })).status).toBe(401);
    const void_ = await c.post<{ error: string }>('/auth/login/2fa', { code: nextCode(secret) });
    expect(void_).toMatchObject({ status: 429, body: { error: 'Too many wrong codes: sign in again' } });

    expect((await client.post<{ error: string }>('/auth/2fa/disable', { password: 'Wrong-pass-1', code: nextCode(secret) })).body.error).toBe('Wrong password');
    expect((await client.post('/auth/2fa/disable', { password: STRONG_PASSWORD, code: nextCode(secret) })).status).toBe(200);
    const plain = await server.client().post<{ success: boolean }>('/auth/login', { email, password: STRONG_PASSWORD });
    expect(plain.body.success).toBe(true);
    expect((await client.post('/auth/2fa/setup', {})).status).toBe(200);
    expect((await server.client().post('/auth/2fa/setup', {})).status).toBe(401);
  });
});

describe('two-factor sign-in for admins', () => {
  it('the admin login stops at the code step; /auth/admin/login/2fa finishes it', async () => {
    await adminClient(server); // the admin account exists
    const admin = server.client();
    expect((await admin.post('/auth/admin/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD })).status).toBe(200);
    const { secret, recoveryCodes } = await enable(admin, '/auth/admin/2fa');
    const next = server.client();
    const r = await next.post<Record<string, unknown>>('/auth/admin/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
    expect(r.body).toEqual({ success: false, requiresTwoFactor: true });
    expect((await next.get('/admin/users')).status).toBe(401);
    expect((await next.post('/auth/admin/login/2fa', { code: nextCode(secret) })).status).toBe(200);
    expect((await next.get('/admin/users')).status).toBe(200);
    // The current and next steps are used up: a recovery code stands in for the second factor.
    expect((await next.post('/auth/admin/2fa/disable', { password: ADMIN_PASSWORD, code: recoveryCodes[0] })).status).toBe(200);
  });

  it('ADMIN_REQUIRE_2FA=1: an admin without it sets it up before any session', async () => {
    const strict = await startTestServer({ adminRequire2fa: true });
    try {
      await adminClient(strict).catch(() => undefined); // creates the admin (its own sign-in stops at setup)
      const c = strict.client();
      const r = await c.post<Record<string, unknown>>('/auth/admin/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
      expect(r.body).toEqual({ success: false, requiresTwoFactorSetup: true });
      expect((await c.get('/admin/users')).status).toBe(401);
      const setup = await c.post<{ secret: string }>('/auth/admin/2fa/setup', {});
      expect(setup.status).toBe(200);
      const on = await c.post<{ recoveryCodes: string[] }>('/auth/admin/2fa/enable', { code: totp(setup.body.secret).generate() });
      expect(on.body.recoveryCodes).toHaveLength(10);
      expect((await c.get('/admin/users')).status).toBe(200);
      // Without a pending sign-in, setup is refused.
      expect((await strict.client().post('/auth/admin/2fa/setup', {})).status).toBe(401);
    } finally {
      await strict.close();
    }
  });
});
