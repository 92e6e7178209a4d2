import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BYTES_PER_GB, bytesToGb, gbToBytes } from '@proxyhub/core';
import { topupCodes } from '@proxyhub/db';
import { adminClient, expectLedgerOk, internalClient, sessionClient } from './credits-helpers';
import { addCredits, RELAXED_LIMITS, signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

type Code = { code: string; creditsGB: number; creditsMB: number; creditsBytes: number; expiresAt: string | null };

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

async function mint(body: Record<string, unknown>) {
  const r = await admin.post<{ codes: Code[] }>('/admin/codes/create', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.codes;
}

const countCodes = async () => (await server.deps.db.select().from(topupCodes)).length;

describe('creating codes', () => {
  it('returns the spec fields; codes are uppercase, <= 20 chars, no look-alikes', async () => {
    const codes = await mint({ creditsGB: 1.5, quantity: 5, expiresAt: null });
    expect(codes).toHaveLength(5);
    for (const c of codes) {
      expect(c).toEqual({ code: expect.stringMatching(/^[A-HJKMNP-Z2-9]{16}$/), creditsGB: 1.5, creditsMB: 1536, creditsBytes: 1610612736, expiresAt: null });
    }
    expect(new Set(codes.map((c) => c.code)).size).toBe(5);
    const tenth = await mint({ creditsGB: 0.1, quantity: 1, expiresAt: '' });
    expect(tenth[0]).toMatchObject({ creditsBytes: 107374182, creditsGB: 0.1, creditsMB: 102 });
    const expiry = new Date(Date.now() + 86_400_000).toISOString();
    const [later] = await mint({ creditsGB: 2, quantity: 1, expiresAt: expiry });
    expect(later!.expiresAt).toBe(expiry);
  });

  it('refuses bad input with a clear 400 and writes nothing', async () => {
    const before = await countCodes();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ creditsGB: 0.05, quantity: 1 }, 'Credits must be at least 0.1 GB'],
      [{ creditsGB: -1, quantity: 1 }, 'Credits must be at least 0.1 GB'],
      [{ creditsGB: 0.35, quantity: 1 }, 'Credits must be in steps of 0.1 GB'],
      [{ creditsGB: 'abc', quantity: 1 }, 'Credits (GB) must be a number'],
      [{ quantity: 1 }, 'Credits (GB) must be a number'],
      [{ creditsGB: 1, quantity: 0 }, 'Quantity must be at least 1'],
      [{ creditsGB: 1, quantity: 101 }, 'Quantity must be at most 100'],
      [{ creditsGB: 1, quantity: 1e9 }, 'Quantity must be at most 100'],
      [{ creditsGB: 1, quantity: 2.5 }, 'Quantity must be a whole number'],
      [{ creditsGB: 1, quantity: '5' }, 'Quantity must be a number'],
      [{ creditsGB: 1 }, 'Quantity must be a number'],
      [{ creditsGB: 1, quantity: 1, expiresAt: '2000-01-01T00:00:00Z' }, 'Expiry must be in the future'],
      [{ creditsGB: 1, quantity: 1, expiresAt: 'tomorrow-ish' }, 'Expiry must be a date and time'],
      [{ creditsGB: 1, quantity: 1, expiresAt: 12 }, 'Expiry must be a date and time'],
    ];
    for (const [body, error] of cases) {
      const r = await admin.post('/admin/codes/create', body);
      expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status: 400, error });
    }
    const malformed = await admin.request('POST', '/admin/codes/create', '{"creditsGB":', {});
    expect(malformed.status).toBe(400);
    expect(await countCodes()).toBe(before);
  });

  it('is refused to users and anonymous callers; internal tools use tRPC with the key', async () => {
    const { client } = await signedInUser(server);
    expect((await client.post('/admin/codes/create', { creditsGB: 1, quantity: 1 })).status).toBe(403);
    expect((await server.client().post('/admin/codes/create', { creditsGB: 1, quantity: 1 })).status).toBe(401);
    await expect(sessionClient(server, client).admin.createCodes.mutate({ creditsGB: 1, quantity: 1, expiresAt: null })).rejects.toMatchObject({
      data: { code: 'FORBIDDEN' },
    });
    const { codes } = await internalClient(server).admin.createCodes.mutate({ creditsGB: 3, quantity: 2, expiresAt: null });
    expect(codes).toHaveLength(2);
    expect(codes[0]!.creditsBytes).toBe(3n * BYTES_PER_GB);
    const [row] = await server.deps.db.select().from(topupCodes).where(eq(topupCodes.code, codes[0]!.code));
    expect(row).toMatchObject({ createdBy: 'internal', createdByAdminId: null });
  });
});

describe('redeeming codes', () => {
  it('credits once, in MB in the answer and bytes in the balance; trimmed and uppercased', async () => {
    const [c] = await mint({ creditsGB: 1.5, quantity: 1, expiresAt: null });
    const { client } = await signedInUser(server);
    const r = await client.post('/auth/redeem-code', { code: `  ${c!.code.toLowerCase()} ` });
    expect(r).toMatchObject({ status: 200, body: { success: true, credits: 1536, newBalance: 1610612736, message: 'Successfully redeemed 1536 MB' } });
    const me = await client.get<{ user: { credits: number } }>('/auth/user');
    expect(me.body.user.credits).toBe(1610612736);
    const again = await client.post('/auth/redeem-code', { code: c!.code });
    expect(again).toMatchObject({ status: 409, body: { success: false, error: 'This code has already been redeemed.' } });
    const other = await signedInUser(server);
    expect((await other.client.post('/auth/redeem-code', { code: c!.code })).status).toBe(409);
  });

  it('answers the same remaining as the session and the admin list while a gateway holds a lease', async () => {
    const { client, email, user } = await signedInUser(server);
    await addCredits(server, user.id, BYTES_PER_GB);
    const gateway = internalClient(server).gateway;
    const { account } = await gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
    if (!account.ok) throw new Error(account.message);
    const lease = await gateway.reserveLease.mutate({ gatewayId: 'gw-remaining', proxyAccountId: account.proxyAccountId, bytes: 100 * 1024 * 1024 });
    expect(lease.grantedBytes).toBe(100n * 1024n * 1024n);

    const [c] = await mint({ creditsGB: 1.5, quantity: 1, expiresAt: null });
    const remaining = BYTES_PER_GB + gbToBytes(1.5);
    const r = await client.post<{ newBalance: number }>('/auth/redeem-code', { code: c!.code });
    expect(r.body.newBalance).toBe(Number(remaining));
    expect((await client.get<{ user: { credits: number } }>('/auth/user')).body.user.credits).toBe(Number(remaining));
    const listed = await admin.get<{ users: Array<{ email: string; creditsGB: number }> }>(`/admin/users?search=${encodeURIComponent(email)}`);
    expect(listed.body.users).toMatchObject([{ email, creditsGB: bytesToGb(remaining) }]);
    const typed = await internalClient(server).admin.users.query({ search: email });
    expect(typed.users[0]!.remainingBytes).toBe(remaining);
    await gateway.releaseLeases.mutate({ gatewayId: 'gw-remaining' });
  });

  it('explains unknown, expired and empty codes, and needs a user', async () => {
    const { client } = await signedInUser(server);
    expect(await client.post('/auth/redeem-code', { code: 'NOPE2345NOPE2345' })).toMatchObject({
      status: 404,
      body: { error: 'Invalid code. Please check the code and try again.' },
    });
    const [c] = await mint({ creditsGB: 1, quantity: 1, expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await server.deps.db
      .update(topupCodes)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(topupCodes.code, c!.code));
    expect(await client.post('/auth/redeem-code', { code: c!.code })).toMatchObject({ status: 400, body: { error: 'This code has expired.' } });
    expect(await client.post('/auth/redeem-code', { code: '   ' })).toMatchObject({ status: 400, body: { error: 'Please enter a code' } });
    expect(await client.post('/auth/redeem-code', {})).toMatchObject({ status: 400, body: { error: 'Please enter a code' } });
    expect(await client.post('/auth/redeem-code', { code: 'A'.repeat(21) })).toMatchObject({ status: 400, body: { error: 'Codes are at most 20 characters' } });
    expect((await client.post('/auth/redeem-code', { code: 12345 })).status).toBe(400);
    expect((await server.client().post('/auth/redeem-code', { code: c!.code })).status).toBe(401);
    const me = await client.get<{ user: { credits: number } }>('/auth/user');
    expect(me.body.user.credits).toBe(0);
  });

  it('credits exactly once under 100 concurrent redemptions by many users', async () => {
    const [c] = await mint({ creditsGB: 2, quantity: 1, expiresAt: null });
    const users: Awaited<ReturnType<typeof signedInUser>>[] = [];
    for (let i = 0; i < 20; i++) users.push(await signedInUser(server));
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => users[i % users.length]!.client.post('/auth/redeem-code', { code: c!.code })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(99);
    const balances = await Promise.all(users.map(async (u) => (await u.client.get<{ user: { credits: number } }>('/auth/user')).body.user.credits));
    expect(balances.reduce((a, b) => a + b, 0)).toBe(2 * 1073741824);
  });
});

describe('redeem rate limits', () => {
  it('counts failed guesses only: many real codes in a row all redeem', async () => {
    const limited = await startTestServer({
      rateLimits: { ...RELAXED_LIMITS, redeemUser: { points: 3, durationSeconds: 600 }, redeem: { points: 3, durationSeconds: 600 } },
    });
    try {
      const admin = await adminClient(limited);
      const made = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: 0.1, quantity: 6, expiresAt: null });
      expect(made.status).toBe(200);
      const a = await signedInUser(limited);
      for (const { code } of made.body.codes) expect((await a.client.post('/auth/redeem-code', { code })).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await a.client.post('/auth/redeem-code', { code: `NOPE${i}` })).status).toBe(404);
      expect((await a.client.post('/auth/redeem-code', { code: 'NOPE9' })).status).toBe(429);
      await expectLedgerOk(limited);
    } finally {
      await limited.close();
    }
  });

  it('limits attempts per user and per IP', async () => {
    const limited = await startTestServer({
      rateLimits: { ...RELAXED_LIMITS, redeemUser: { points: 3, durationSeconds: 600 }, redeem: { points: 5, durationSeconds: 600 } },
    });
    try {
      const a = await signedInUser(limited);
      for (let i = 0; i < 3; i++) expect((await a.client.post('/auth/redeem-code', { code: `GUESS${i}` })).status).toBe(404);
      const blocked = await a.client.post('/auth/redeem-code', { code: 'GUESS9' });
      expect(blocked.status).toBe(429);
      expect(blocked.body.error).toMatch(/^Too many attempts/);
      expect(blocked.headers.get('retry-after')).toBeTruthy();
      // Same IP, another user: the IP budget (5) runs out after two more.
      const b = await signedInUser(limited);
      expect((await b.client.post('/auth/redeem-code', { code: 'GUESSB1' })).status).toBe(404);
      expect((await b.client.post('/auth/redeem-code', { code: 'GUESSB2' })).status).toBe(429);
      await expectLedgerOk(limited);
    } finally {
      await limited.close();
    }
  });
});
