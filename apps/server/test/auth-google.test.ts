import { createHash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOGLE_NOT_CONFIGURED } from '@proxyhub/api';
import { linkToken, signedInUser, STRONG_PASSWORD, startTestServer, uniqueEmail, type HttpClient, type TestServer } from './helpers';
import { startFakeGoogle, userRow, type FakeGoogle } from './auth-support';

describe('Google sign-in without configuration', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('GET /auth/google returns to the login page with a clear message', async () => {
    const res = await server.client().get('/auth/google');
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!, 'http://x');
    expect(location.pathname).toBe('/login');
    expect(location.searchParams.get('error')).toBe(GOOGLE_NOT_CONFIGURED);
    const cb = await server.client().get('/auth/google/callback?code=a&state=b');
    expect(new URL(cb.headers.get('location')!, 'http://x').searchParams.get('error')).toBe(GOOGLE_NOT_CONFIGURED);
  });
});

describe('Google sign-in against a fake provider on loopback', () => {
  let server: TestServer;
  let google: FakeGoogle;
  beforeAll(async () => {
    google = await startFakeGoogle();
    server = await startTestServer({
      google: {
        clientId: 'test-client-id',
        clientSecret: 'test-client-secret',
        authorizationEndpoint: google.authorizationEndpoint,
        tokenEndpoint: google.tokenEndpoint,
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await google.close();
  });

  /** Starts the flow in a browser-like client and returns what the provider was sent. */
  async function start(client: HttpClient) {
    const res = await client.get('/auth/google');
    expect(res.status).toBe(302);
    const url = new URL(res.headers.get('location')!);
    return { res, url, state: url.searchParams.get('state')! };
  }

  async function signIn(claims: Record<string, unknown>, client = server.client()) {
    google.claims = claims;
    const { state } = await start(client);
    const res = await client.get(`/auth/google/callback?code=code-${Math.random().toString(36).slice(2)}&state=${encodeURIComponent(state)}`);
    const location = new URL(res.headers.get('location')!, server.config.publicUrl);
    return { res, client, location, error: location.searchParams.get('error') };
  }

  const profile = (over: Record<string, unknown> = {}) => ({
    sub: `sub-${Math.random().toString(36).slice(2)}`,
    email: uniqueEmail('google'),
    email_verified: true,
    name: 'Gina Google',
    ...over,
  });

  it('redirects to the provider with state and an S256 PKCE challenge, kept in short-lived cookies', async () => {
    const client = server.client();
    const { res, url, state } = await start(client);
    expect(`${url.origin}${url.pathname}`).toBe(google.authorizationEndpoint);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('client_id')).toBe('test-client-id');
    expect(url.searchParams.get('redirect_uri')).toBe(`${server.config.publicUrl}/auth/google/callback`);
    expect(url.searchParams.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['openid', 'email', 'profile']));
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(state.length).toBeGreaterThanOrEqual(20);

    const cookies = res.headers.getSetCookie();
    const stateCookie = cookies.find((c) => c.startsWith('google_oauth_state='))!;
    const verifierCookie = cookies.find((c) => c.startsWith('google_code_verifier='))!;
    for (const c of [stateCookie, verifierCookie]) {
      expect(c).toMatch(/HttpOnly/i);
      expect(c).toMatch(/SameSite=Lax/i);
      expect(c).toMatch(/Max-Age=600/i);
      expect(c).toMatch(/Path=\/auth\/google/i);
    }
    expect(client.cookies.get('google_oauth_state')).toBe(state);
    const verifier = client.cookies.get('google_code_verifier')!;
    expect(url.searchParams.get('code_challenge')).toBe(createHash('sha256').update(verifier).digest('base64url'));
  });

  it('signs a new user in on the right state, sends the verifier to the token endpoint, keys the account on sub', async () => {
    const p = profile({ email: uniqueEmail('NewGoogle').toUpperCase() });
    const client = server.client();
    google.claims = p;
    const { state } = await start(client);
    const verifier = client.cookies.get('google_code_verifier')!;
    const before = google.tokenRequests.length;
    const res = await client.get(`/auth/google/callback?code=the-code&state=${encodeURIComponent(state)}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/dashboard');
    expect(client.cookies.get('session')).toBeTruthy();
    // The one-time cookies are cleared.
    expect(client.cookies.has('google_oauth_state')).toBe(false);
    expect(client.cookies.has('google_code_verifier')).toBe(false);

    const sent = google.tokenRequests[before]!;
    expect(sent.get('grant_type')).toBe('authorization_code');
    expect(sent.get('code')).toBe('the-code');
    expect(sent.get('code_verifier')).toBe(verifier);
    expect(sent.get('redirect_uri')).toBe(`${server.config.publicUrl}/auth/google/callback`);

    const me = await client.get<{ user: Record<string, unknown> }>('/auth/user');
    expect(me.status).toBe(200);
    const email = p.email.toLowerCase();
    expect(me.body.user).toMatchObject({ email, name: 'Gina Google', authType: 'google', emailVerified: true });
    expect(me.body.user.proxyUserId).toMatch(/^[a-z0-9]+$/);
    const [row] = await userRow(server, email);
    expect(row!.googleSub).toBe(p.sub);
    expect(row!.passwordHash).toBeNull();

    // Same sub, a changed email at Google: still the same account, no second user.
    const again = await signIn({ ...p, email: uniqueEmail('renamed') });
    expect(again.res.headers.get('location')).toBe('/dashboard');
    const me2 = await again.client.get<{ user: { id: string } }>('/auth/user');
    expect(me2.body.user.id).toBe(row!.id);
  });

  it('a sign-up started from /login?ref=CODE is recorded as referred; the code does not outlive its flow', async () => {
    const referrer = await signedInUser(server);
    const code = (await referrer.client.get<{ user: { referralCode: string } }>('/auth/user')).body.user.referralCode;
    const referred = async () => (await referrer.client.get<{ referred: number }>('/api/referrals')).body.referred;
    const referredBy = async (email: string) => (await userRow(server, email.toLowerCase()))[0]!.referredBy;
    /** One round trip, started as the login page's Google button starts it. */
    async function flow(claims: { email: string }, start: string, client = server.client()) {
      google.claims = claims;
      const res = await client.get(start);
      expect(res.status).toBe(302);
      const state = new URL(res.headers.get('location')!).searchParams.get('state')!;
      const done = await client.get(`/auth/google/callback?code=c&state=${encodeURIComponent(state)}`);
      expect(done.headers.get('location')).toBe('/dashboard');
      return { res, client };
    }

    // The code (any case) rides in a short-lived cookie beside the state; the callback clears it.
    const p = profile();
    const first = await flow(p, `/auth/google?ref=${code.toLowerCase()}`);
    const cookie = first.res.headers.getSetCookie().find((c) => c.startsWith('google_referral='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Path=\/auth\/google/i);
    expect(first.client.cookies.has('google_referral')).toBe(false);
    expect(await referredBy(p.email)).toBe(referrer.user.id);
    expect(await referred()).toBe(1);

    // An existing account signing in through a referral link is not counted again.
    await flow(p, `/auth/google?ref=${code}`);
    // A flow started without ?ref carries no code from an abandoned one in the same browser.
    const browser = server.client();
    await browser.get(`/auth/google?ref=${code}`);
    const plain = profile();
    await flow(plain, '/auth/google', browser);
    expect(await referredBy(plain.email)).toBeNull();
    // A code that names nobody does not stop the sign-up.
    const stranger = profile();
    await flow(stranger, '/auth/google?ref=NOSUCHCODE1');
    expect(await referredBy(stranger.email)).toBeNull();
    expect(await referred()).toBe(1);
  });

  it('refuses a wrong or missing state, and a callback without the cookies', async () => {
    google.claims = profile();
    const client = server.client();
    await start(client);
    const wrong = await client.get('/auth/google/callback?code=c&state=not-the-state');
    expect(wrong.status).toBe(302);
    expect(new URL(wrong.headers.get('location')!, 'http://x').pathname).toBe('/login');
    expect(new URL(wrong.headers.get('location')!, 'http://x').searchParams.get('error')).toMatch(/expired or was started elsewhere/);
    expect(client.cookies.has('session')).toBe(false);

    const c2 = server.client();
    await start(c2);
    const missing = await c2.get('/auth/google/callback?code=c');
    expect(new URL(missing.headers.get('location')!, 'http://x').pathname).toBe('/login');
    expect(c2.cookies.has('session')).toBe(false);

    // A state copied into another browser (no cookies there) is refused: login CSRF.
    const c3 = server.client();
    const { state } = await start(c3);
    const elsewhere = await server.client().get(`/auth/google/callback?code=c&state=${encodeURIComponent(state)}`);
    expect(new URL(elsewhere.headers.get('location')!, 'http://x').pathname).toBe('/login');
    expect(elsewhere.headers.getSetCookie().some((c) => c.startsWith('session=') && !/Max-Age=0/i.test(c))).toBe(false);

    // The state is single use: replaying the callback in the same browser fails.
    const c4 = server.client();
    const first = await signIn(profile(), c4);
    expect(first.res.headers.get('location')).toBe('/dashboard');
    const replay = await c4.get(`/auth/google/callback?code=c&state=whatever`);
    expect(new URL(replay.headers.get('location')!, 'http://x').pathname).toBe('/login');
  });

  it('handles a cancelled sign-in, a failing token endpoint and odd query values without a 500', async () => {
    const client = server.client();
    const { state } = await start(client);
    const cancelled = await client.get(`/auth/google/callback?error=access_denied&state=${state}`);
    expect(new URL(cancelled.headers.get('location')!, 'http://x').searchParams.get('error')).toBe('Google sign-in was cancelled.');

    google.failWith = 400;
    try {
      const failed = await signIn(profile());
      expect(failed.error).toBe('Google sign-in failed. Please try again.');
      expect(failed.client.cookies.has('session')).toBe(false);
    } finally {
      google.failWith = null;
    }

    for (const qs of ['code=a&code=b&state=s', 'code=a&state=s&state=t', `code=${'x'.repeat(5000)}&state=s`, `code=a&state=${'s'.repeat(5000)}`]) {
      const c = server.client();
      await start(c);
      const res = await c.get(`/auth/google/callback?${qs}`);
      expect(res.status).toBe(302);
      const err = new URL(res.headers.get('location')!, 'http://x').searchParams.get('error')!;
      expect(err).toMatch(/^Google sign-in|^Google/);
      expect(err).not.toMatch(/[{[]/);
    }
  });

  it('does not create an account for an email Google has not verified', async () => {
    const p = profile({ email_verified: false });
    const r = await signIn(p);
    expect(r.location.pathname).toBe('/login');
    expect(r.error).toMatch(/not verified/);
    expect(r.client.cookies.has('session')).toBe(false);
    expect(await userRow(server, p.email)).toHaveLength(0);
  });

  it('links an existing email account only when Google says the email is verified', async () => {
    const { email, user, client: pwClient } = await signedInUser(server);
    const sub = `sub-link-${Math.random().toString(36).slice(2)}`;

    const refused = await signIn({ sub, email, email_verified: false, name: 'Mallory' });
    expect(refused.location.pathname).toBe('/login');
    expect(refused.error).toBe('An account with this email already exists. Sign in with your password to continue.');
    expect(refused.client.cookies.has('session')).toBe(false);
    expect((await userRow(server, email))[0]!.googleSub).toBeNull();

    const linked = await signIn({ sub, email, email_verified: 'true', name: 'Owner' });
    expect(linked.res.headers.get('location')).toBe('/dashboard');
    const me = await linked.client.get<{ user: { id: string; authType: string } }>('/auth/user');
    expect(me.body.user.id).toBe(user.id);
    expect((await userRow(server, email))[0]!.googleSub).toBe(sub);
    // The verified owner keeps their password; both ways in work.
    expect((await server.client().post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(200);
    expect((await pwClient.get('/auth/user')).status).toBe(200);

    // Another Google account claiming the same address does not steal the link.
    const other = await signIn({ sub: `${sub}-other`, email, email_verified: true });
    expect(other.location.pathname).toBe('/login');
    expect((await userRow(server, email))[0]!.googleSub).toBe(sub);
  });

  it('pre-hijacking: linking an account whose email was never verified drops the unproven password', async () => {
    const email = uniqueEmail('victim');
    // An attacker registers the victim's address with a password and never verifies it.
    await server.client().post('/auth/register', { email, password: 'Attacker123', name: 'Attacker' });
    await server.settle();
    const staleLink = linkToken(server.mails(email).at(-1)!);

    const victim = await signIn({ sub: `sub-victim-${Date.now()}`, email, email_verified: true, name: 'Victim' });
    expect(victim.res.headers.get('location')).toBe('/dashboard');
    const [row] = await userRow(server, email);
    expect(row!.passwordHash).toBeNull();
    expect(row!.emailVerifiedAt).toBeInstanceOf(Date);
    expect((await server.client().post('/auth/login', { email, password: 'Attacker123' })).status).toBe(401);
    expect((await server.client().get(`/auth/verify-email?token=${staleLink}`)).body).toMatchObject({ alreadyVerified: true });
  });
});

describe('Google sign-in with two-factor sign-in on', () => {
  let server: TestServer;
  let google: FakeGoogle;
  beforeAll(async () => {
    google = await startFakeGoogle();
    server = await startTestServer({
      google: { clientId: 'id', clientSecret: 'secret', authorizationEndpoint: google.authorizationEndpoint, tokenEndpoint: google.tokenEndpoint },
    });
  });
  afterAll(async () => {
    await server.close();
    await google.close();
  });

  async function viaGoogle(client: HttpClient) {
    const started = await client.get('/auth/google');
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
    return client.get(`/auth/google/callback?code=c-${Math.random().toString(36).slice(2)}&state=${encodeURIComponent(state)}`);
  }

  it('stops at the code step: no session until /auth/login/2fa accepts a code', async () => {
    google.claims = { sub: `sub-2fa-${Date.now()}`, email: uniqueEmail('g2fa'), email_verified: true, name: 'Two Factor' };
    const first = server.client();
    expect((await viaGoogle(first)).headers.get('location')).toBe('/dashboard');
    const setup = await first.post<{ secret: string }>('/auth/2fa/setup', {});
    const totp = new TOTP({ secret: Secret.fromBase32(setup.body.secret), digits: 6, period: 30 });
    expect((await first.post('/auth/2fa/enable', { code: totp.generate() })).status).toBe(200);

    const second = server.client();
    const back = await viaGoogle(second);
    expect(back.headers.get('location')).toBe('/login?twoFactor=1');
    expect(second.cookies.has('session')).toBe(false);
    expect(second.cookies.get('pending_2fa')).toBeTruthy();
    expect((await second.get('/auth/user')).status).toBe(401);
    expect((await second.post('/auth/login/2fa', { code: totp.generate({ timestamp: Date.now() + 30_000 }) })).status).toBe(200);
    expect((await second.get('/auth/user')).status).toBe(200);
  });
});
