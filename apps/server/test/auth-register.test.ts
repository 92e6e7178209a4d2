import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkToken, STRONG_PASSWORD, startTestServer, uniqueEmail, type TestServer } from './helpers';
import { proxyAccountRows, rawRequest, trpcFor, userRow } from './auth-support';
import { describeError } from '@proxyhub/core/i18n';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Rows hold bigint byte counts, which JSON.stringify refuses. */
const bigintAsString = (_k: string, v: unknown) => (typeof v === 'bigint' ? String(v) : v);

const valid = () => ({ email: uniqueEmail('reg'), password: STRONG_PASSWORD, name: 'Ada Lovelace' });

// The spec's messages (section 5) word for word; the "must be text" and "at most" ones are ours.
const cases: [string, Record<string, unknown>, string][] = [
  ['email missing', { email: undefined }, 'Email is required'],
  ['email empty', { email: '' }, 'Email is required'],
  ['email blank', { email: '   ' }, 'Email is required'],
  ['email null', { email: null }, 'Email is required'],
  ['email a number', { email: 42 }, 'Email must be text'],
  ['email an object', { email: { $ne: '' } }, 'Email must be text'],
  ['email malformed', { email: 'not-an-email' }, 'Please enter a valid email address'],
  ['email without a dot', { email: 'a@b' }, 'Please enter a valid email address'],
  ['email too long', { email: `${'a'.repeat(250)}@example.com` }, 'Email must be at most 254 characters'],
  ['password missing', { password: undefined }, 'Password is required'],
  ['password empty', { password: '' }, 'Password is required'],
  ['password an array', { password: ['Secret123'] }, 'Password must be text'],
  ['password short', { password: 'Sec123' }, 'Password must be at least 8 characters'],
  ['password without upper case', { password: 'secret123' }, 'Password must contain at least one lowercase letter, one uppercase letter, and one number'],
  ['password without lower case', { password: 'SECRET123' }, 'Password must contain at least one lowercase letter, one uppercase letter, and one number'],
  ['password without a digit', { password: 'SecretSecret' }, 'Password must contain at least one lowercase letter, one uppercase letter, and one number'],
  ['password too long', { password: `Aa1${'x'.repeat(300)}` }, 'Password must be at most 256 characters'],
  ['name missing', { name: undefined }, 'Name is required'],
  ['name empty', { name: '' }, 'Name is required'],
  ['name a boolean', { name: true }, 'Name must be text'],
  ['name one letter', { name: ' A ' }, 'Name must be at least 2 characters'],
  ['name too long', { name: 'n'.repeat(101) }, 'Name must be at most 100 characters'],
  ['name with a newline', { name: 'Grace\nHopper' }, 'Name must not contain control characters'],
  ['name with a tab', { name: 'Grace\tHopper' }, 'Name must not contain control characters'],
  ['name with a bidi override', { name: 'Grace \u202Eroppoh' }, 'Name must not contain control characters'],
  ['name with a link', { name: 'Win a prize at https://evil.example/claim' }, 'Name must not contain a link or web address'],
  ['name with a bare host', { name: 'Visit evil.example now' }, 'Name must not contain a link or web address'],
  ['name with www', { name: 'see www.evil' }, 'Name must not contain a link or web address'],
  ['name with an address', { name: 'write to x@evil.com' }, 'Name must not contain a link or web address'],
];

describe('register: validation', () => {
  it.each(cases)('REST: %s', async (_what, patch, message) => {
    const body = { ...valid(), ...patch };
    const res = await server.client().post('/auth/register', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: message, code: describeError(message)!.code });
    // No partial write: nothing was created for the address.
    if (typeof body.email === 'string' && body.email.includes('@example.com')) expect(await userRow(server, body.email.toLowerCase())).toHaveLength(0);
  });

  it.each(cases)('tRPC: %s', async (_what, patch, message) => {
    const trpc = trpcFor(server, server.client());
    const err = await trpc.auth.register.mutate({ ...valid(), ...patch }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect((err as TRPCClientError<never>).message).toBe(message);
    expect((err as TRPCClientError<never>).data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
  });

  it('refuses a body that is not an object', async () => {
    for (const body of ['[]', '"text"', '42', 'true']) {
      const res = await server.client().post('/auth/register', body);
      expect(res.status).toBe(400);
      expect(typeof res.body.error).toBe('string');
      expect(res.body.error).not.toBe('');
    }
  });
});

describe('register: names and the verification mail', () => {
  it('accepts ordinary names from many scripts, with initials, hyphens and apostrophes', async () => {
    for (const name of ["Jean-Luc O'Neil", 'J. R. R. Tolkien', 'Zoë Ångström', '李小龍', 'Grace Hopper Jr.']) {
      expect((await server.client().post('/auth/register', { ...valid(), name })).status).toBe(200);
    }
  });

  it('mails no text the registrant chose to the address being verified: not the name', async () => {
    const email = uniqueEmail('victim');
    // Registering someone else's address: the name is refused if it holds a link, and never mailed anyway.
    expect((await server.client().post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Claim at evil.example' })).status).toBe(400);
    expect((await server.client().post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Mallory Marker' })).status).toBe(200);
    await server.settle();
    const [mail] = server.mails(email);
    expect(mail!.subject).toBe('Verify your email');
    expect(mail!.text).not.toContain('Mallory');
    expect(mail!.html).not.toContain('Mallory');
    expect(mail!.text).toMatch(/^Confirm your email address to start using ProxyHub\.\n\nVerify email: http:\/\/localhost:3000\/verify-email\?token=/);
  });
});

describe('register: a new account', () => {
  it('trims and lowercases the email, creates credentials and stores secrets hashed or encrypted', async () => {
    const raw = uniqueEmail('MiXeD');
    const client = server.client();
    const res = await client.post('/auth/register', { email: `  ${raw.toUpperCase()}  `, password: STRONG_PASSWORD, name: '  Grace Hopper ' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Registration successful. Please check your email to verify your account.' });
    const email = raw.toLowerCase();

    const [row] = await userRow(server, email);
    expect(row).toBeDefined();
    expect(row!.name).toBe('Grace Hopper');
    expect(row!.emailVerifiedAt).toBeNull();
    // argon2id with OWASP's parameters.
    expect(row!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row!.passwordHash).not.toContain(STRONG_PASSWORD);

    await server.settle();
    const token = linkToken(server.mails(email).at(-1)!);
    expect((await client.get(`/auth/verify-email?token=${token}`)).status).toBe(200);
    const login = await client.post<{ user: Record<string, string> }>('/auth/login', { email: raw, password: STRONG_PASSWORD });
    expect(login.status).toBe(200);
    const { proxyUserId, proxyPassword, apiKey } = login.body.user;
    expect(proxyUserId).toMatch(/^[a-z0-9]{6,}$/);
    expect(proxyPassword).toMatch(/^[A-Za-z0-9]{12,}$/);
    expect(apiKey).toMatch(/^\S{24,}$/);

    // At rest: the API key is a keyed hash + ciphertext, the proxy password ciphertext only.
    const [stored] = await userRow(server, email);
    expect(stored!.apiKeyHash).not.toBe(apiKey);
    expect(stored!.apiKeyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored!.apiKeyEnc).not.toContain(apiKey);
    expect(JSON.stringify(stored, bigintAsString)).not.toContain(apiKey);
    const accounts = await proxyAccountRows(server, stored!.id);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.proxyUserId).toBe(proxyUserId);
    expect(accounts[0]!.proxyPasswordEnc).not.toContain(proxyPassword);
    expect(JSON.stringify(accounts[0], bigintAsString)).not.toContain(proxyPassword);
  });

  it('gives every account different credentials', async () => {
    const a = valid();
    const b = valid();
    await server.client().post('/auth/register', a);
    await server.client().post('/auth/register', b);
    const [ua] = await userRow(server, a.email);
    const [ub] = await userRow(server, b.email);
    const [pa] = await proxyAccountRows(server, ua!.id);
    const [pb] = await proxyAccountRows(server, ub!.id);
    expect(pa!.proxyUserId).not.toBe(pb!.proxyUserId);
    expect(ua!.apiKeyHash).not.toBe(ub!.apiKeyHash);
  });

  it('mails a verification link built from PUBLIC_URL, whatever the Host header says', async () => {
    const body = valid();
    const res = await rawRequest(server, {
      method: 'POST',
      path: '/auth/register',
      headers: { host: 'evil.example:666', 'content-type': 'application/json', 'x-forwarded-host': 'evil.example' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    await server.settle();
    const mails = server.mails(body.email);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.subject).toMatch(/verify/i);
    expect(mail.text).toContain(`${server.config.publicUrl}/verify-email?token=`);
    expect(mail.html).toContain(`${server.config.publicUrl}/verify-email?token=`);
    expect(mail.text + mail.html).not.toContain('evil.example');
    expect(mail).toMatchObject({ to: body.email, createdAt: expect.any(String) });
    // At least 128 random bits: 32 bytes base64url.
    expect(linkToken(mail).length).toBeGreaterThanOrEqual(22);
  });

  it('works through tRPC with the same schema', async () => {
    const body = valid();
    const trpc = trpcFor(server, server.client());
    await expect(trpc.auth.register.mutate(body)).resolves.toEqual({ message: 'Registration successful. Please check your email to verify your account.' });
    expect(await userRow(server, body.email)).toHaveLength(1);
  });
});

describe('register: anti-enumeration', () => {
  it('answers an existing email exactly like a new one and creates no second user', async () => {
    const body = valid();
    const first = await server.client().post('/auth/register', body);
    const again = await server.client().post('/auth/register', { ...body, name: 'Someone Else', password: 'Other1234' });
    const upper = await server.client().post('/auth/register', { ...body, email: body.email.toUpperCase() });
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(upper.body).toEqual(first.body);
    const rows = await userRow(server, body.email);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.name).toBe(body.name);
  });

  it('for a verified account: same answer, the owner gets a notice, the password is not changed', async () => {
    const body = valid();
    const client = server.client();
    await client.post('/auth/register', body);
    await server.settle();
    await client.get(`/auth/verify-email?token=${linkToken(server.mails(body.email).at(-1)!)}`);
    const again = await server.client().post('/auth/register', { ...body, password: 'Hijack123' });
    expect(again).toMatchObject({ status: 200, body: { success: true, message: 'Registration successful. Please check your email to verify your account.' } });
    await server.settle();
    expect(server.mails(body.email).at(-1)!.subject).toBe('Sign-in attempt');
    expect((await server.client().post('/auth/login', { email: body.email, password: 'Hijack123' })).status).toBe(401);
    expect((await server.client().post('/auth/login', { email: body.email, password: STRONG_PASSWORD })).status).toBe(200);
  });

  it('leaves exactly one user after concurrent registrations of one email', async () => {
    const body = valid();
    const results = await Promise.all(Array.from({ length: 6 }, () => server.client().post('/auth/register', body)));
    for (const r of results) expect(r).toMatchObject({ status: 200, body: { success: true } });
    const rows = await userRow(server, body.email);
    expect(rows).toHaveLength(1);
    expect(await proxyAccountRows(server, rows[0]!.id)).toHaveLength(1);
  });
});
