import { randomBytes } from 'node:crypto';
import { TRPCClientError } from '@trpc/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateLimitConfig } from '@proxyhub/api';
import { linkToken, RELAXED_LIMITS, signedInUser, STRONG_PASSWORD, startTestServer, uniqueEmail, type HttpResult, type TestServer } from './helpers';
import { trpcFor } from './auth-support';

const TIGHT: RateLimitConfig = {
  ...RELAXED_LIMITS,
  loginIp: { points: 4, durationSeconds: 60 },
  loginAccountIp: { points: 2, durationSeconds: 60 },
  loginAccount: { points: 3, durationSeconds: 60, delayMs: 200 },
  register: { points: 2, durationSeconds: 60 },
  resend: { points: 3, durationSeconds: 60 },
  resendAccount: { points: 1, durationSeconds: 60 },
  forgot: { points: 3, durationSeconds: 60 },
  forgotAccount: { points: 1, durationSeconds: 60 },
  reset: { points: 2, durationSeconds: 600 },
  resetCheck: { points: 2, durationSeconds: 600 },
  teamInvite: { points: 3, durationSeconds: 60 },
  teamInviteEmail: { points: 1, durationSeconds: 60 },
};

const REDIS_URL = 'redis://127.0.0.1:6379';

let ipCounter = 0;
/** A fresh client IP (sent as X-Forwarded-For to a server that trusts it). */
const freshIp = () => `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter++ & 255}`;

function expectLimited(res: HttpResult) {
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({ success: false, error: expect.stringMatching(/^Too many attempts\. Please try again in \d+ (seconds|minutes)\.$/) });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(600);
}

/** The same scenarios against a memory-backed and a Redis-backed limiter. */
function scenarios(getServer: () => TestServer) {
  const client = (ip = freshIp()) => getServer().client({ ip });

  it('login: per IP, across different accounts', async () => {
    const c = client();
    for (let i = 0; i < 4; i++) expect((await c.post('/auth/login', { email: uniqueEmail('iplimit'), password: 'Wrong1234' })).status).toBe(401);
    expectLimited(await c.post('/auth/login', { email: uniqueEmail('iplimit'), password: 'Wrong1234' }));
    // Another IP is not affected.
    expect((await client().post('/auth/login', { email: uniqueEmail('iplimit'), password: 'Wrong1234' })).status).toBe(401);
  });

  it('login: per (account, address): wrong passwords in a row from one address are refused, the right one too', async () => {
    const { email } = await signedInUser(getServer(), 'Limited User', { client: client() });
    const c = client();
    expect((await c.post('/auth/login', { email, password: 'Wrong1234' })).status).toBe(401);
    expect((await c.post('/auth/login', { email, password: 'Wrong1234' })).status).toBe(401);
    expectLimited(await c.post('/auth/login', { email, password: 'Wrong1234' }));
    expectLimited(await c.post('/auth/login', { email: email.toUpperCase(), password: STRONG_PASSWORD }));
    // The owner, from an address that has not been failing, is not locked out.
    expect((await client().post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(200);
    // An unknown account is limited the same way: the 429 reveals nothing.
    const ghost = uniqueEmail('ghost');
    const g = client();
    await g.post('/auth/login', { email: ghost, password: 'x' });
    await g.post('/auth/login', { email: ghost, password: 'x' });
    expectLimited(await g.post('/auth/login', { email: ghost, password: 'x' }));
  });

  it('login: an attacker failing from many addresses slows guessing but never locks the owner out', async () => {
    const { email } = await signedInUser(getServer(), 'Targeted User', { client: client() });
    // Past the per-account ceiling (3): each attacking address has failed once.
    const attackers = Array.from({ length: 6 }, () => client());
    for (const a of attackers) expect((await a.post('/auth/login', { email, password: 'Wrong1234' })).status).toBe(401);
    // Over the ceiling, an address that already failed on this account gets no second guess.
    expectLimited(await attackers[0]!.post('/auth/login', { email, password: 'Wrong1234' }));
    // A new address may still try, but only after a delay.
    const started = Date.now();
    expect((await client().post('/auth/login', { email, password: 'Wrong1234' })).status).toBe(401);
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
    // The owner's correct password from a clean address gets in (slowed, never refused).
    const owner = client();
    expect((await owner.post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(200);
    expect((await owner.get('/auth/user')).status).toBe(200);
  });

  it('login: slow brute force from one address across accounts is limited per address', async () => {
    const c = client();
    for (let i = 0; i < 4; i++) expect((await c.post('/auth/login', { email: uniqueEmail('spray'), password: 'Wrong1234' })).status).toBe(401);
    expectLimited(await c.post('/auth/login', { email: uniqueEmail('spray'), password: 'Wrong1234' }));
  });

  it('login: a successful sign-in clears the account counter', async () => {
    const { email } = await signedInUser(getServer(), 'Limited User', { client: client() });
    expect((await client().post('/auth/login', { email, password: 'Wrong1234' })).status).toBe(401);
    expect((await client().post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(200);
    expect((await client().post('/auth/login', { email, password: 'Wrong1234' })).status).toBe(401);
    expect((await client().post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(200);
  });

  it('register: per IP; the limited call creates nothing', async () => {
    const c = client();
    for (let i = 0; i < 2; i++)
      expect((await c.post('/auth/register', { email: uniqueEmail('reglimit'), password: STRONG_PASSWORD, name: 'Rate Limited' })).status).toBe(200);
    const email = uniqueEmail('reglimit');
    expectLimited(await c.post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Rate Limited' }));
    await getServer().settle();
    expect(getServer().mails(email)).toHaveLength(0);
  });

  it('register: malformed attempts do not use up the allowance', async () => {
    const c = client();
    for (let i = 0; i < 5; i++) expect((await c.post('/auth/register', { email: 'bad' })).status).toBe(400);
    expect((await c.post('/auth/register', { email: uniqueEmail('ok'), password: STRONG_PASSWORD, name: 'Fine Here' })).status).toBe(200);
  });

  it('resend: per account and per IP', async () => {
    const s = getServer();
    const email = uniqueEmail('resend');
    await client().post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Resend Me' });
    expect((await client().post('/auth/resend-verification', { email })).status).toBe(200);
    expectLimited(await client().post('/auth/resend-verification', { email }));
    const c = client();
    for (let i = 0; i < 3; i++) expect((await c.post('/auth/resend-verification', { email: uniqueEmail('r') })).status).toBe(200);
    expectLimited(await c.post('/auth/resend-verification', { email: uniqueEmail('r') }));
    await s.settle();
    expect(s.mails(email)).toHaveLength(2);
  });

  it('forgot: per account and per IP', async () => {
    const s = getServer();
    const { email } = await signedInUser(s, 'Limited User', { client: client() });
    expect((await client().post('/auth/forgot-password', { email })).status).toBe(200);
    expectLimited(await client().post('/auth/forgot-password', { email }));
    const c = client();
    for (let i = 0; i < 3; i++) expect((await c.post('/auth/forgot-password', { email: uniqueEmail('f') })).status).toBe(200);
    expectLimited(await c.post('/auth/forgot-password', { email: uniqueEmail('f') }));
    await s.settle();
    expect(s.mails(email).filter((m) => m.subject === 'Reset your password')).toHaveLength(1);
  });

  it('reset: per IP, and the limited call does not consume the token', async () => {
    const s = getServer();
    const { email } = await signedInUser(s, 'Limited User', { client: client() });
    await client().post('/auth/forgot-password', { email });
    await s.settle();
    const token = linkToken(s.mails(email).at(-1)!);
    const c = client();
    for (let i = 0; i < 2; i++) expect((await c.post('/auth/reset-password', { token: `guess-${i}`, password: 'Guessed123' })).status).toBe(400);
    expectLimited(await c.post('/auth/reset-password', { token, password: 'Changed123' }));
    expect((await client().post('/auth/reset-password', { token, password: 'Changed123' })).status).toBe(200);
  });

  it('reset link check: per IP', async () => {
    const c = client();
    for (let i = 0; i < 2; i++) expect((await c.get(`/auth/reset-password/check?token=guess-${i}`)).body).toEqual({ valid: false });
    expectLimited(await c.get('/auth/reset-password/check?token=guess-2'));
    expect((await client().get('/auth/reset-password/check?token=guess-3')).status).toBe(200);
  });

  it('team invites: per inviting account and per invited address; the limited call mails nothing', async () => {
    const s = getServer();
    const owner = await signedInUser(s, 'Inviting Owner', { client: client() });
    const other = await signedInUser(s, 'Other Owner', { client: client() });
    const invitee = uniqueEmail('invitee');
    expect((await owner.client.post('/api/team/invites', { email: invitee, role: 'viewer' })).status).toBe(201);
    // The same address again, from another account too: its one mail an hour is spent.
    expectLimited(await owner.client.post('/api/team/invites', { email: invitee, role: 'admin' }));
    expectLimited(await other.client.post('/api/team/invites', { email: invitee, role: 'viewer' }));
    // A burst of other addresses from one account: the account's allowance (3 here, counting the first).
    for (let i = 0; i < 2; i++) expect((await owner.client.post('/api/team/invites', { email: uniqueEmail('i'), role: 'viewer' })).status).toBe(201);
    const burst = uniqueEmail('burst');
    expectLimited(await owner.client.post('/api/team/invites', { email: burst, role: 'viewer' }));
    expect((await other.client.post('/api/team/invites', { email: uniqueEmail('i'), role: 'viewer' })).status).toBe(201);
    await s.settle();
    expect(s.mails(invitee)).toHaveLength(1);
    expect(s.mails(burst)).toHaveLength(0);
    expect((await owner.client.get<{ invites: unknown[] }>('/api/team')).body.invites).toHaveLength(3);
  });

  it('tRPC: TOO_MANY_REQUESTS with a Retry-After header', async () => {
    const c = client();
    let retryAfter: string | null = null;
    const spy = Object.assign(Object.create(c) as typeof c, {
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        const res = await c.fetch(input, init);
        retryAfter = res.headers.get('retry-after');
        return res;
      },
    });
    const trpc = trpcFor(getServer(), spy, { batch: false });
    for (let i = 0; i < 2; i++) await trpc.auth.register.mutate({ email: uniqueEmail('t'), password: STRONG_PASSWORD, name: 'Trpc Limit' });
    const err = (await trpc.auth.register
      .mutate({ email: uniqueEmail('t'), password: STRONG_PASSWORD, name: 'Trpc Limit' })
      .catch((e: unknown) => e)) as TRPCClientError<never>;
    expect(err).toBeInstanceOf(TRPCClientError);
    expect(err.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', httpStatus: 429 });
    expect(err.message).toMatch(/^Too many attempts/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
}

describe('rate limits in memory', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: TIGHT, trustProxy: true });
  });
  afterAll(() => server.close());
  scenarios(() => server);

  it('without a trusted proxy, X-Forwarded-For is ignored (no way around the IP limit)', async () => {
    const plain = await startTestServer({ rateLimits: TIGHT });
    try {
      for (let i = 0; i < 4; i++) await plain.client({ ip: freshIp() }).post('/auth/login', { email: uniqueEmail('x'), password: 'x' });
      expectLimited(await plain.client({ ip: freshIp() }).post('/auth/login', { email: uniqueEmail('x'), password: 'x' }));
    } finally {
      await plain.close();
    }
  });
});

describe('rate limits in Redis', () => {
  const prefix = `proxyhub-test-rl:${randomBytes(6).toString('hex')}`;
  let server: TestServer;
  let second: TestServer;
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    server = await startTestServer({ rateLimits: TIGHT, trustProxy: true, redisUrl: REDIS_URL, redisKeyPrefix: prefix });
    second = await startTestServer({ rateLimits: TIGHT, trustProxy: true, redisUrl: REDIS_URL, redisKeyPrefix: prefix });
  });
  afterAll(async () => {
    await Promise.all([server.close(), second.close()]);
    // Only our own keys.
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });
  scenarios(() => server);

  it('keeps its counters in Redis under the prefix', async () => {
    expect((await redis.keys(`${prefix}:loginIp:*`)).length).toBeGreaterThan(0);
  });

  it('two server processes share the counters', async () => {
    const ip = freshIp();
    await server.client({ ip }).post('/auth/register', { email: uniqueEmail('shared'), password: STRONG_PASSWORD, name: 'Shared One' });
    await second.client({ ip }).post('/auth/register', { email: uniqueEmail('shared'), password: STRONG_PASSWORD, name: 'Shared Two' });
    expectLimited(await server.client({ ip }).post('/auth/register', { email: uniqueEmail('shared'), password: STRONG_PASSWORD, name: 'Shared Three' }));
  });
});

describe('rate limits when Redis is unreachable', () => {
  it('falls back to memory: sign-in keeps working and limits still apply', async () => {
    const server = await startTestServer({ rateLimits: TIGHT, redisUrl: 'redis://127.0.0.1:1', redisKeyPrefix: 'unreachable' });
    try {
      const c = server.client();
      for (let i = 0; i < 2; i++)
        expect((await c.post('/auth/register', { email: uniqueEmail('down'), password: STRONG_PASSWORD, name: 'Redis Down' })).status).toBe(200);
      expectLimited(await c.post('/auth/register', { email: uniqueEmail('down'), password: STRONG_PASSWORD, name: 'Redis Down' }));
    } finally {
      await server.close();
    }
  });
});
