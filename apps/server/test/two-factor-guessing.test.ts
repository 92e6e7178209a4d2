/**
 * Second-factor codes cannot be guessed by someone who has the password: at most 20 wrong codes per
 * account per 15 minutes across addresses and pending sign-ins (then 429, and the owner gets one
 * mail), and at most five evaluated per pending sign-in even when thirty arrive at once.
 */
import { Secret, TOTP } from 'otpauth';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '@proxyhub/api';
import { pendingLogins } from '@proxyhub/db';
import { ADMIN_PASSWORD, ADMIN_USERNAME, adminClient } from './credits-helpers';
import { RELAXED_LIMITS, signedInUser, startTestServer, STRONG_PASSWORD, type HttpClient, type HttpResult, type TestServer } from './helpers';

const ALERT_SUBJECT = 'Someone entered your password but not your code';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    trustProxy: true,
    rateLimits: { ...RELAXED_LIMITS, twoFactorAccount: DEFAULT_RATE_LIMITS.twoFactorAccount, twoFactorAlert: DEFAULT_RATE_LIMITS.twoFactorAlert },
  });
});
afterAll(() => server.close());

const totp = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
const nextCode = (secret: string) => totp(secret).generate({ timestamp: Date.now() + 30_000 });
/** Six digits that no step in the accepted window produces. */
function wrongCode(secret: string): string {
  const valid = new Set([-60_000, -30_000, 0, 30_000, 60_000].map((d) => totp(secret).generate({ timestamp: Date.now() + d })));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}

async function enable(client: HttpClient, base = '/auth/2fa'): Promise<string> {
  const setup = await client.post<{ secret: string }>(`${base}/setup`, {});
  expect((await client.post(`${base}/enable`, { code: totp(setup.body.secret).generate() })).status).toBe(200);
  return setup.body.secret;
}

let address = 0;
/** A browser on an address of its own. */
const browser = () => server.client({ ip: `198.51.100.${++address}` });

async function userWithTwoFactor() {
  const { client, email } = await signedInUser(server, 'Guessed Owner', { client: browser() });
  return { email, secret: await enable(client) };
}

/** A pending sign-in (the password was right) on a new address. */
async function pendingUser(email: string): Promise<HttpClient> {
  const c = browser();
  expect((await c.post('/auth/login', { email, password: STRONG_PASSWORD })).body).toMatchObject({ requiresTwoFactor: true });
  return c;
}

function expectAccountLimited(res: HttpResult) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    success: false,
    error: expect.stringMatching(/^Too many attempts\. Please try again in \d+ (seconds|minutes)\.$/),
    code: expect.stringMatching(/^TOO_MANY_ATTEMPTS_(SECONDS|MINUTES)$/),
  });
}

const countBy = (results: HttpResult[]) => results.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

describe('wrong second-factor codes per account', () => {
  it('20 wrong codes from 4 addresses and pending sign-ins, then 429 for every code step of the account (the right code too), and one mail', async () => {
    const { email, secret } = await userWithTwoFactor();
    for (let p = 0; p < 4; p++) {
      const c = await pendingUser(email);
      for (let i = 0; i < 5; i++) {
        const r = await c.post<{ error: string }>('/auth/login/2fa', { code: wrongCode(secret) });
        expect(r).toMatchObject({ status: 401, body: { success: false, error: 'Invalid code' } });
      }
    }
    const fresh = await pendingUser(email);
    expectAccountLimited(await fresh.post('/auth/login/2fa', { code: wrongCode(secret) }));
    expectAccountLimited(await fresh.post('/auth/login/2fa', { code: nextCode(secret) }));
    // A recovery-style code is a code too.
    expectAccountLimited(await (await pendingUser(email)).post('/auth/login/2fa', { code: 'ABCDE-FGHJK' }));
    expect((await fresh.get('/auth/user')).status).toBe(401);
    // The password step itself is not what is limited: it still answers.
    expect((await browser().post('/auth/login', { email, password: STRONG_PASSWORD })).body).toMatchObject({ requiresTwoFactor: true });

    await server.settle();
    const alerts = server.mails(email).filter((m) => m.subject === ALERT_SUBJECT);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.text).toContain('20 wrong two-factor codes');
    expect(alerts[0]!.text).toContain('http://localhost:3000/forgot-password');
  });

  it('wrong recovery codes count alike: 20 of them across pending sign-ins, then 429 for the right code too', async () => {
    const { email, secret } = await userWithTwoFactor();
    for (let p = 0; p < 4; p++) {
      const c = await pendingUser(email);
      for (let i = 0; i < 5; i++) {
        const r = await c.post('/auth/login/2fa', { code: `ABCDE-FG${p}H${i}` });
        expect(r).toMatchObject({ status: 401, body: { success: false, error: 'Invalid code' } });
      }
    }
    expectAccountLimited(await (await pendingUser(email)).post('/auth/login/2fa', { code: nextCode(secret) }));
  });

  it('a right code gives its point back: only wrong codes count', async () => {
    const { email, secret } = await userWithTwoFactor();
    for (let p = 0; p < 3; p++) {
      const c = await pendingUser(email);
      for (let i = 0; i < 4; i++) expect((await c.post('/auth/login/2fa', { code: wrongCode(secret) })).status).toBe(401);
    }
    // 12 wrong; a sign-in with the right code succeeds and does not count.
    const ok = await pendingUser(email);
    expect((await ok.post('/auth/login/2fa', { code: nextCode(secret) })).status).toBe(200);
    const c = await pendingUser(email);
    for (let i = 0; i < 5; i++) expect((await c.post('/auth/login/2fa', { code: wrongCode(secret) })).status).toBe(401);
    const d = await pendingUser(email);
    for (let i = 0; i < 3; i++) expect((await d.post('/auth/login/2fa', { code: wrongCode(secret) })).status).toBe(401);
    expectAccountLimited(await d.post('/auth/login/2fa', { code: wrongCode(secret) }));
  });

  it('40 wrong codes at once over 8 pending sign-ins: exactly 20 are evaluated, and one mail', async () => {
    const { email, secret } = await userWithTwoFactor();
    const pendings = [];
    for (let p = 0; p < 8; p++) pendings.push(await pendingUser(email));
    const code = wrongCode(secret);
    const results = await Promise.all(pendings.flatMap((c) => Array.from({ length: 5 }, () => c.post('/auth/login/2fa', { code }))));
    expect(countBy(results)).toEqual({ 401: 20, 429: 20 });
    await server.settle();
    expect(server.mails(email).filter((m) => m.subject === ALERT_SUBJECT)).toHaveLength(1);
  });
});

describe('wrong second-factor codes per pending sign-in', () => {
  it('30 wrong codes at once on one pending sign-in: 5 evaluated, 25 refused, and the sign-in is void', async () => {
    const { email, secret } = await userWithTwoFactor();
    const c = await pendingUser(email);
    const code = wrongCode(secret);
    const results = await Promise.all(Array.from({ length: 30 }, () => c.post<{ error: string }>('/auth/login/2fa', { code })));
    expect(countBy(results)).toEqual({ 401: 5, 429: 25 });
    // Refused by the pending sign-in's count, or (while the others hold their points) the account's.
    for (const r of results.filter((x) => x.status === 429)) expect(r.body.error).toMatch(/^(Too many wrong codes: sign in again|Too many attempts\. .*)$/);
    const rows = await server.deps.db.select({ attempts: pendingLogins.attempts }).from(pendingLogins);
    expect(rows.map((r) => r.attempts)).toContain(5);
    expect(Math.max(...rows.map((r) => r.attempts))).toBe(5);
    expect((await c.post('/auth/login/2fa', { code: nextCode(secret) })).status).toBe(429);
  });
});

describe('admins alike', () => {
  it('20 wrong admin codes across pending sign-ins, then 429; 30 at once on one pending sign-in evaluate 5', async () => {
    const admin = await adminClient(server);
    const secret = await enable(admin, '/auth/admin/2fa');
    const [adminRow] = await server.deps.db.query.adminUsers.findMany({ where: (t, { eq: is }) => is(t.username, ADMIN_USERNAME) });
    const pendingAdmin = async () => {
      const c = browser();
      expect((await c.post('/auth/admin/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD })).body).toMatchObject({ requiresTwoFactor: true });
      return c;
    };
    const code = wrongCode(secret);
    const one = await pendingAdmin();
    const burst = await Promise.all(Array.from({ length: 30 }, () => one.post('/auth/admin/login/2fa', { code })));
    expect(countBy(burst)).toEqual({ 401: 5, 429: 25 });
    const adminPending = await server.deps.db.select({ attempts: pendingLogins.attempts }).from(pendingLogins).where(eq(pendingLogins.adminId, adminRow!.id));
    expect(adminPending.map((r) => r.attempts)).toEqual([5]);
    for (let p = 0; p < 3; p++) {
      const c = await pendingAdmin();
      for (let i = 0; i < 5; i++) expect((await c.post('/auth/admin/login/2fa', { code })).status).toBe(401);
    }
    const last = await pendingAdmin();
    expectAccountLimited(await last.post('/auth/admin/login/2fa', { code: nextCode(secret) }));
    expect((await last.get('/admin/users')).status).toBe(401);
  });
});
