/**
 * Account basics from Settings: changing the password (other sessions end, this one stays),
 * renaming, and deleting the account (anonymised: the ledger keeps its rows), over REST and tRPC.
 */
import { TRPCClientError } from '@trpc/client';
import { eq } from 'drizzle-orm';
import { users } from '@proxyhub/db';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  addCredits,
  adminClient,
  expectLedgerHolds,
  expectLedgerOk,
  type HttpClient,
  internalClient,
  proxyAccountRows,
  sessionRows,
  signedInUser,
  startFakeGoogle,
  startTestServer,
  STRONG_PASSWORD,
  trpcFor,
  uniqueEmail,
  userRow,
  type FakeGoogle,
  type TestServer,
} from './helpers';

const NEW_PASSWORD = 'Another456';
const GB = 1073741824n;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

/** A second browser signed in as the same user. */
async function secondBrowser(email: string, password = STRONG_PASSWORD) {
  const client = server.client();
  const r = await client.post('/auth/login', { email, password });
  expect(r.status).toBe(200);
  return client;
}

const signedIn = async (client: HttpClient) => (await client.get('/auth/user')).status === 200;
const login = (email: string, password: string) => server.client().post('/auth/login', { email, password });

async function trpcError(p: Promise<unknown>) {
  const err = await p.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TRPCClientError);
  return err as TRPCClientError<never>;
}

describe('POST /auth/change-password', () => {
  it('needs the current password; other sessions end, this one stays; the new password signs in; a notice is mailed', async () => {
    const { client, email, user } = await signedInUser(server);
    const other = await secondBrowser(email);
    expect(await sessionRows(server, user.id)).toHaveLength(2);

    const wrong = await client.post('/auth/change-password', { currentPassword: 'Wrong-123', newPassword: NEW_PASSWORD });
    expect(wrong).toMatchObject({ status: 400, body: { success: false, error: 'Current password is incorrect' } });
    expect(await signedIn(other)).toBe(true);

    const r = await client.post('/auth/change-password', { currentPassword: STRONG_PASSWORD, newPassword: NEW_PASSWORD });
    expect(r).toMatchObject({ status: 200, body: { success: true, message: 'Password changed. Your other sessions were signed out.' } });
    expect(await signedIn(client)).toBe(true);
    expect(await signedIn(other)).toBe(false);
    expect(await sessionRows(server, user.id)).toHaveLength(1);

    expect((await login(email, STRONG_PASSWORD)).status).toBe(401);
    expect((await login(email, NEW_PASSWORD)).status).toBe(200);
    await server.settle();
    expect(server.mails(email).at(-1)).toMatchObject({ subject: 'Your password was changed', text: expect.stringContaining('in Settings') });
  });

  it('the new password follows the registration rules, word for word; fields are required', async () => {
    const { client } = await signedInUser(server);
    const cases: [Record<string, unknown>, string][] = [
      [{ currentPassword: STRONG_PASSWORD, newPassword: 'Short1' }, 'Password must be at least 8 characters'],
      [
        { currentPassword: STRONG_PASSWORD, newPassword: 'alllowercase1' },
        'Password must contain at least one lowercase letter, one uppercase letter, and one number',
      ],
      [{ currentPassword: STRONG_PASSWORD }, 'Password is required'],
      [{ newPassword: NEW_PASSWORD }, 'Current password is required'],
      [{ currentPassword: STRONG_PASSWORD, newPassword: STRONG_PASSWORD }, 'The new password must be different from the current one'],
    ];
    for (const [body, error] of cases) {
      expect(await client.post('/auth/change-password', body), JSON.stringify(body)).toMatchObject({ status: 400, body: { success: false, error } });
    }
    expect((await server.client().post('/auth/change-password', { currentPassword: STRONG_PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(401);
  });

  it('over tRPC, and with the API key (every session ends: the key has none of its own)', async () => {
    const { client, email, user } = await signedInUser(server);
    const trpc = trpcFor(server, client);
    const err = await trpcError(trpc.auth.changePassword.mutate({ currentPassword: 'Nope-1234', newPassword: NEW_PASSWORD }));
    expect(err.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    await expect(trpc.auth.changePassword.mutate({ currentPassword: STRONG_PASSWORD, newPassword: NEW_PASSWORD })).resolves.toMatchObject({
      message: expect.stringContaining('Password changed'),
    });
    expect(await signedIn(client)).toBe(true);

    const byKey = server.client();
    byKey.bearer = user.apiKey;
    const r = await byKey.post('/auth/change-password', { currentPassword: NEW_PASSWORD, newPassword: 'Third789x' });
    expect(r.status).toBe(200);
    expect(await sessionRows(server, user.id)).toHaveLength(0);
    expect((await login(email, 'Third789x')).status).toBe(200);
  });

  it('wrong current passwords are limited per user (429 with Retry-After)', async () => {
    const limited = await startTestServer({ rateLimits: { ...server.config.rateLimits, accountPassword: { points: 3, durationSeconds: 60 } } });
    try {
      const { client } = await signedInUser(limited);
      for (let i = 0; i < 3; i++) {
        expect((await client.post('/auth/change-password', { currentPassword: `Wrong-${i}x`, newPassword: NEW_PASSWORD })).status).toBe(400);
      }
      const r = await client.post('/auth/change-password', { currentPassword: STRONG_PASSWORD, newPassword: NEW_PASSWORD });
      expect(r.status).toBe(429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

describe('PATCH /auth/user', () => {
  it('renames with the registration rules; /auth/user shows the new name; tRPC too', async () => {
    const { client } = await signedInUser(server, 'Old Name');
    expect(await client.request('PATCH', '/auth/user', { name: 'A' })).toMatchObject({
      status: 400,
      body: { success: false, error: 'Name must be at least 2 characters' },
    });
    expect(await client.request('PATCH', '/auth/user', { name: '   ' })).toMatchObject({ status: 400, body: { error: 'Name is required' } });
    expect(await client.request('PATCH', '/auth/user', { name: 'Go to evil.example' })).toMatchObject({
      status: 400,
      body: { success: false, error: 'Name must not contain a link or web address' },
    });
    expect(await client.request('PATCH', '/auth/user', { name: 'New\rName' })).toMatchObject({
      status: 400,
      body: { success: false, error: 'Name must not contain control characters' },
    });
    const r = await client.request<{ success: boolean; user: { name: string } }>('PATCH', '/auth/user', { name: '  New Name  ' });
    expect(r).toMatchObject({ status: 200, body: { success: true, user: { name: 'New Name' } } });
    expect((await client.get<{ user: { name: string } }>('/auth/user')).body.user.name).toBe('New Name');

    const viaTrpc = await trpcFor(server, client).auth.rename.mutate({ name: 'Third Name' });
    expect(viaTrpc.user.name).toBe('Third Name');
    expect((await server.client().request('PATCH', '/auth/user', { name: 'Anonymous' })).status).toBe(401);
  });
});

describe('PATCH /api/account { locale }', () => {
  it('a registration keeps the visitor language (the locale cookie, else Accept-Language); its verification mail is in it', async () => {
    const es = uniqueEmail();
    const r = await server
      .client()
      .post('/auth/register', { email: es, password: STRONG_PASSWORD, name: 'Ana' }, { 'accept-language': 'es-MX,es;q=0.9,en;q=0.5' });
    expect(r.status).toBe(200);
    expect((await userRow(server, es))[0]!.locale).toBe('es');
    expect(server.mails(es).at(-1)!.subject).toBe('Verifica tu correo electrónico');

    const chosen = uniqueEmail();
    await server.client().post('/auth/register', { email: chosen, password: STRONG_PASSWORD, name: 'Zé' }, { 'accept-language': 'ru', cookie: 'locale=pt-BR' });
    expect((await userRow(server, chosen))[0]!.locale).toBe('pt-BR');

    const plain = uniqueEmail();
    await server.client().post('/auth/register', { email: plain, password: STRONG_PASSWORD, name: 'Plain' }, { 'accept-language': 'de-DE' });
    expect((await userRow(server, plain))[0]!.locale).toBe('en');
    expect(server.mails(plain).at(-1)!.subject).toBe('Verify your email');
  });

  it('changes the language of the account: GET /auth/user and auth.me answer it, mails follow; a bad value is a 400 naming the field', async () => {
    const { client, email } = await signedInUser(server);
    expect((await client.get<{ user: { locale: string } }>('/auth/user')).body.user.locale).toBe('en');
    for (const bad of ['xx', 'RU', 7, null]) {
      expect(await client.request('PATCH', '/api/account', { locale: bad })).toMatchObject({
        status: 400,
        body: { success: false, error: 'Locale must be one of en, ru, zh-CN, es, pt-BR' },
      });
    }
    expect((await client.get<{ user: { locale: string } }>('/auth/user')).body.user.locale).toBe('en');
    const r = await client.request<{ success: boolean; user: { locale: string; name: string } }>('PATCH', '/api/account', { locale: 'ru' });
    expect(r).toMatchObject({ status: 200, body: { success: true, user: { locale: 'ru', name: 'Test User' } } });
    expect((await client.get<{ user: { locale: string } }>('/auth/user')).body.user.locale).toBe('ru');
    expect((await trpcFor(server, client).auth.me.query()).locale).toBe('ru');
    // The name goes through the same call, with the registration rules.
    expect(await client.request('PATCH', '/api/account', { name: 'A' })).toMatchObject({ status: 400, body: { error: 'Name must be at least 2 characters' } });
    expect((await trpcFor(server, client).auth.updateAccount.mutate({ locale: 'zh-CN', name: 'New Name' })).user).toMatchObject({
      locale: 'zh-CN',
      name: 'New Name',
    });
    expect((await userRow(server, email))[0]).toMatchObject({ locale: 'zh-CN', name: 'New Name' });

    // A mail sent afterwards is in the account's language.
    await client.request('PATCH', '/api/account', { locale: 'ru' });
    await server.client().post('/auth/forgot-password', { email });
    await server.settle();
    const reset = server.mails(email).at(-1)!;
    expect(reset.subject).toBe('Сброс пароля');
    expect(reset.text).toContain('/reset-password?token=');
    expect((await server.client().request('PATCH', '/api/account', { locale: 'ru' })).status).toBe(401);
  });
});

describe('DELETE /auth/user', () => {
  it('needs the password: a wrong one changes nothing', async () => {
    const { client, email } = await signedInUser(server);
    expect(await client.request('DELETE', '/auth/user', { password: 'Wrong-123' })).toMatchObject({
      status: 400,
      body: { success: false, error: 'Password is incorrect' },
    });
    expect(await client.request('DELETE', '/auth/user', {})).toMatchObject({ status: 400, body: { error: 'Password is required' } });
    expect(await signedIn(client)).toBe(true);
    expect((await login(email, STRONG_PASSWORD)).status).toBe(200);
  });

  it('anonymises the account: sessions end, sign-in answers as for an unknown email, the API key and proxy credentials are refused, the ledger still adds up', async () => {
    const { client, email, user } = await signedInUser(server, 'Doomed User');
    const other = await secondBrowser(email);
    await addCredits(server, user.id, 2n * GB);
    const { batchId } = await internalClient(server).credits.createBatch.mutate({ accounts: 1, creditsGB: 0.5, usageType: 'shop_proxy_regular' });
    expect((await client.post('/auth/process-batch', { batchId })).status).toBe(200);
    expect((await client.post('/api/proxy-accounts', { name: 'sub', capGB: null })).status).toBe(201);
    const before = await expectLedgerHolds(server, user.id);
    expect(await internalClient(server).gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword })).toMatchObject({
      account: { ok: true },
    });

    const r = await client.request('DELETE', '/auth/user', { password: STRONG_PASSWORD });
    expect(r).toMatchObject({ status: 200, body: { success: true, message: 'Your account was deleted.' } });
    expect(r.headers.getSetCookie().join()).toMatch(/session=;/);
    expect(await signedIn(client)).toBe(false);
    expect(await signedIn(other)).toBe(false);
    expect(await sessionRows(server, user.id)).toHaveLength(0);

    const unknown = await login(uniqueEmail(), STRONG_PASSWORD);
    const deleted = await login(email, STRONG_PASSWORD);
    expect(deleted.status).toBe(unknown.status);
    expect(deleted.body).toEqual(unknown.body);

    const byKey = server.client();
    byKey.bearer = user.apiKey;
    expect((await byKey.get('/auth/user')).status).toBe(401);

    const accounts = await proxyAccountRows(server, user.id);
    expect(accounts).toHaveLength(3);
    for (const a of accounts) expect(a.disabledAt).not.toBeNull();
    expect((await internalClient(server).gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword })).account).toMatchObject({
      ok: false,
      reason: 'bad_credentials',
    });

    expect(await userRow(server, email)).toHaveLength(0);
    const [row] = await server.deps.db.select().from(users).where(eq(users.id, user.id));
    expect(row).toMatchObject({ name: '', passwordHash: null, googleSub: null, totpSecretEnc: null, email: `deleted-${user.id}@deleted.invalid` });
    expect(row!.deletedAt).not.toBeNull();
    // The ledger keeps every entry: the same figures add up for the anonymised row.
    expect(await expectLedgerHolds(server, user.id)).toEqual(before);
  });

  it('the email is free for a new registration afterwards; the new account starts empty', async () => {
    const { client, email, user } = await signedInUser(server);
    await addCredits(server, user.id, GB);
    expect((await trpcFor(server, client).auth.deleteAccount.mutate({ password: STRONG_PASSWORD })).message).toBe('Your account was deleted.');
    const again = await signedInUser(server, 'Second Life', { email });
    expect(again.user.id).not.toBe(user.id);
    expect((await again.client.get<{ user: { credits: number; email: string } }>('/auth/user')).body.user).toMatchObject({ credits: 0, email });
  });

  it('the admin sees the deleted account as deleted, and cannot suspend or restore it', async () => {
    const { client, user } = await signedInUser(server);
    expect((await client.request('DELETE', '/auth/user', { password: STRONG_PASSWORD })).status).toBe(200);
    const admin = await adminClient(server);
    const list = await admin.get<{ users: { id: string; email: string; name: string }[] }>('/admin/users?status=deleted&pageSize=200');
    expect(list.body.users.find((u) => u.id === user.id)).toMatchObject({ email: `deleted-${user.id}@deleted.invalid`, name: '' });
    const suspended = await admin.get<{ users: { id: string }[] }>('/admin/users?status=suspended&pageSize=200');
    expect(suspended.body.users.find((u) => u.id === user.id)).toBeUndefined();
    const detail = await admin.get<{ profile: { status: string; deletedAt: string | null } }>(`/admin/users/${user.id}`);
    expect(detail.body.profile).toMatchObject({ status: 'deleted', deletedAt: expect.any(String) });
    expect((await admin.post(`/admin/users/${user.id}/unsuspend`, {})).status).toBe(409);
  });
});

describe('sign-in options and returning users', () => {
  it('without GOOGLE_CLIENT_ID the sign-in page is told there is no Google button', async () => {
    await expect(trpcFor(server, server.client()).auth.signInOptions.query()).resolves.toEqual({ google: false });
  });

  it('the first session is a first visit; a later sign-in is a returning user', async () => {
    const { client, email } = await signedInUser(server);
    expect((await client.get<{ user: { returning: boolean } }>('/auth/user')).body.user.returning).toBe(false);
    const again = await login(email, STRONG_PASSWORD);
    expect(again.body).toMatchObject({ user: { returning: true } });
  });
});

describe('an account that signs in with Google only', () => {
  let gserver: TestServer;
  let google: FakeGoogle;
  beforeAll(async () => {
    google = await startFakeGoogle();
    gserver = await startTestServer({
      google: { clientId: 'cid', clientSecret: 'secret', authorizationEndpoint: google.authorizationEndpoint, tokenEndpoint: google.tokenEndpoint },
    });
  });
  afterAll(async () => {
    await gserver.close();
    await google.close();
  });
  afterEach(() => expectLedgerOk(gserver));

  async function googleUser() {
    const email = uniqueEmail('google');
    google.claims = { sub: `sub-${Math.random().toString(36).slice(2)}`, email, email_verified: true, name: 'Gina Google' };
    const client = gserver.client();
    const start = await client.get('/auth/google');
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    await client.get(`/auth/google/callback?code=c-${Math.random().toString(36).slice(2)}&state=${encodeURIComponent(state)}`);
    expect((await client.get('/auth/user')).status).toBe(200);
    return { client, email };
  }

  it('the sign-in page is told to show the Google button', async () => {
    await expect(trpcFor(gserver, gserver.client()).auth.signInOptions.query()).resolves.toEqual({ google: true });
  });

  it('cannot change a password it does not have: 400 pointing to the reset link', async () => {
    const { client } = await googleUser();
    const r = await client.post('/auth/change-password', { currentPassword: 'Whatever1', newPassword: NEW_PASSWORD });
    expect(r).toMatchObject({ status: 400, body: { success: false, error: expect.stringContaining('Forgot password') } });
  });

  it('is deleted by typing its email address instead of a password; Google then makes a new, empty account', async () => {
    const { client, email } = await googleUser();
    expect(await client.request('DELETE', '/auth/user', { email: 'someone@else.com' })).toMatchObject({
      status: 400,
      body: { error: 'Type the email address of your account to confirm' },
    });
    expect(await client.request('DELETE', '/auth/user', {})).toMatchObject({ status: 400 });
    const r = await client.request('DELETE', '/auth/user', { email: email.toUpperCase() });
    expect(r.status).toBe(200);
    expect(await signedIn(client)).toBe(false);
    expect(await userRow(gserver, email)).toHaveLength(0);
  });
});
