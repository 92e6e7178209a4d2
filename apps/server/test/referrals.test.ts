import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { attachReferrer, creditDueReferrals, SANDBOX_SIGNATURE_HEADER, signSandboxNotification, type SandboxNotification } from '@proxyhub/api';
import { gbToBytes } from '@proxyhub/core';
import { auditLog, creditEntries, referralCredits, userNetworks, users } from '@proxyhub/db';
import { expectLedgerOk } from './credits-helpers';
import { addCredits, expectLedgerHolds, RELAXED_LIMITS, signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

const GB = gbToBytes(1);
const DAY = 24 * 60 * 60 * 1000;

type Me = { user: { id: string; credits: number; referralCode: string } };
type Summary = {
  referralCode: string;
  link: string;
  referred: number;
  pendingBytes: number;
  earnedBytes: number;
  entries: Array<{ referredUser: string; orderGb: number; bytes: number; status: string; reason: string | null; dueAt: string; creditedAt: string | null }>;
};

const me = async (client: HttpClient) => (await client.get<Me>('/auth/user')).body.user;

/** Places a 12 GB sandbox order and delivers a signed notification of `status` for it. */
async function order(server: TestServer, client: HttpClient, gbAmount = 12, payerId?: string) {
  const r = await client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount, priceUsd: (gbAmount * 90) / 100 });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const id = r.body.invoiceUrl.split('/').at(-1)!;
  const notify = async (status: string) => {
    const body = {
      order_id: id,
      payment_id: `p-${id}`,
      payment_status: status,
      price_amount: (gbAmount * 90) / 100,
      price_currency: 'usd',
      ...(payerId ? { payer_id: payerId } : {}),
    } as unknown as SandboxNotification;
    const res = await server
      .client({ origin: null })
      .post('/webhooks/sandbox', body, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(server.config.appSecret, body) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  return { id, notify };
}

describe('referrals (pending 14 days, 10 %)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: RELAXED_LIMITS });
  });
  afterAll(() => server.close());
  afterEach(() => expectLedgerOk(server));

  it('every user has a referral code and a link; registering with it (any case) makes a referred user', async () => {
    const referrer = await signedInUser(server);
    const { referralCode } = await me(referrer.client);
    expect(referralCode).toMatch(/^[0-9A-F]{16}$/);
    const friend = await signedInUser(server, 'Friend', { referralCode: referralCode.toLowerCase() });
    expect((await server.deps.db.select().from(users).where(eq(users.id, friend.user.id)))[0]!.referredBy).toBe(referrer.user.id);
    const s = await referrer.client.get<Summary>('/api/referrals');
    expect(s.status).toBe(200);
    expect(s.body).toEqual({
      referralCode,
      link: `http://localhost:3000/login?ref=${referralCode}`,
      referred: 1,
      pendingBytes: 0,
      earnedBytes: 0,
      entries: [],
    });
    expect((await server.client().get('/api/referrals')).status).toBe(401);
  });

  it('an unknown referral code is a 400 naming it, and no account is made', async () => {
    const client = server.client();
    const email = `nobody-${Date.now()}@example.com`;
    const r = await client.post('/auth/register', { email, password: 'Secret123', name: 'Xavier', referralCode: 'NOSUCHCODE' });
    expect(r).toMatchObject({ status: 400, body: { success: false, error: 'Unknown referral code' } });
    const bad = await client.post('/auth/register', { email, password: 'Secret123', name: 'Xavier', referralCode: 'a-b' });
    expect(bad).toMatchObject({ status: 400, body: { success: false, error: 'Referral code must be letters and digits' } });
    await server.settle();
    expect(await server.deps.db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
  });

  it('a paid order earns 10 % pending, credited once when due (concurrent and repeated runs), in the ledger, billing and audit', async () => {
    const referrer = await signedInUser(server);
    const friend = await signedInUser(server, 'Friend', { referralCode: (await me(referrer.client)).referralCode });
    const o = await order(server, friend.client, 20);
    await o.notify('finished');
    await o.notify('finished');
    const earning = (20n * GB) / 10n;
    let s = (await referrer.client.get<Summary>('/api/referrals')).body;
    expect(s).toMatchObject({ referred: 1, pendingBytes: Number(earning), earnedBytes: 0 });
    expect(s.entries).toEqual([
      expect.objectContaining({ referredUser: expect.stringMatching(/^u\*\*\*@example\.com$/), orderGb: 20, bytes: Number(earning), status: 'pending' }),
    ]);
    const due = new Date(s.entries[0]!.dueAt).getTime();
    expect(due - Date.now()).toBeGreaterThan(14 * DAY - 60_000);
    expect(due - Date.now()).toBeLessThanOrEqual(14 * DAY);
    expect((await me(referrer.client)).credits).toBe(0);

    // Not yet due: nothing.
    expect(await creditDueReferrals(server.deps.db, new Date(Date.now() + 13 * DAY))).toMatchObject({ credited: 0 });
    // Due: several runs at once (two server processes, a restart) credit it once.
    const later = new Date(Date.now() + 15 * DAY);
    const runs = await Promise.all(Array.from({ length: 5 }, () => creditDueReferrals(server.deps.db, later)));
    expect(runs.reduce((n, r) => n + r.credited, 0)).toBe(1);
    expect((await creditDueReferrals(server.deps.db, later)).credited).toBe(0);
    server.deps.cache.invalidate(); // as the job does after crediting
    expect((await me(referrer.client)).credits).toBe(Number(earning));
    s = (await referrer.client.get<Summary>('/api/referrals')).body;
    expect(s).toMatchObject({
      pendingBytes: 0,
      earnedBytes: Number(earning),
      entries: [expect.objectContaining({ status: 'credited', creditedAt: expect.any(String) })],
    });

    // The friend's refund after the pending time takes nothing back from the referrer.
    await o.notify('refunded');
    expect((await me(referrer.client)).credits).toBe(Number(earning));

    const entries = await server.deps.db.select().from(creditEntries).where(eq(creditEntries.userId, referrer.user.id));
    expect(entries).toEqual([expect.objectContaining({ kind: 'referral', amountBytes: earning })]);
    const billing = await referrer.client.get<{ entries: Array<{ kind: string; bytes: string; description: string }> }>('/api/billing');
    expect(billing.body.entries).toEqual([expect.objectContaining({ kind: 'referral', bytes: String(earning), description: 'Referral reward' })]);
    const audit = await server.deps.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.target, `user:${referrer.user.id}`));
    expect(audit.map((a) => a.action).sort()).toEqual(['referral.credit', 'referral.pending']);
    await expectLedgerHolds(server, referrer.user.id);
  });

  it('an order refunded before the pending time ends earns nothing', async () => {
    const referrer = await signedInUser(server);
    const friend = await signedInUser(server, 'Friend', { referralCode: (await me(referrer.client)).referralCode });
    const o = await order(server, friend.client);
    await o.notify('finished');
    await o.notify('refunded');
    expect((await creditDueReferrals(server.deps.db, new Date(Date.now() + 30 * DAY))).credited).toBe(0);
    const s = (await referrer.client.get<Summary>('/api/referrals')).body;
    expect(s).toMatchObject({ pendingBytes: 0, earnedBytes: 0, entries: [expect.objectContaining({ status: 'cancelled' })] });
    expect((await me(referrer.client)).credits).toBe(0);
    expect(await server.deps.db.select().from(creditEntries).where(eq(creditEntries.userId, referrer.user.id))).toHaveLength(0);
  });

  it('redeemed codes, gifts and unpaid orders earn nothing; users without a referrer earn nobody anything', async () => {
    const referrer = await signedInUser(server);
    const friend = await signedInUser(server, 'Friend', { referralCode: (await me(referrer.client)).referralCode });
    const giver = await signedInUser(server);
    await addCredits(server, giver.user.id, GB);
    const gift = await giver.client.post<{ code: string }>('/api/gift-codes', { creditsGB: 1 });
    expect((await friend.client.post('/auth/redeem-code', { code: gift.body.code })).status).toBe(200);
    const unpaid = await order(server, friend.client);
    await unpaid.notify('failed');
    const loner = await signedInUser(server);
    await (await order(server, loner.client)).notify('finished');
    expect(await server.deps.db.select().from(referralCredits).where(eq(referralCredits.referrerId, referrer.user.id))).toHaveLength(0);
    expect((await referrer.client.get<Summary>('/api/referrals')).body).toMatchObject({ referred: 1, pendingBytes: 0, earnedBytes: 0, entries: [] });
  });

  it('self-referral is refused', async () => {
    const u = await signedInUser(server);
    await expect(server.deps.db.transaction((tx) => attachReferrer(tx, { userId: u.user.id, referrerId: u.user.id }))).rejects.toThrow(
      'You cannot refer yourself',
    );
    expect((await server.deps.db.select().from(users).where(eq(users.id, u.user.id)))[0]!.referredBy).toBeNull();
  });
});

describe('referrals with REFERRAL_PENDING_DAYS=0 and another percent', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: RELAXED_LIMITS, referrals: { percent: 25, pendingDays: 0 } });
  });
  afterAll(() => server.close());
  afterEach(() => expectLedgerOk(server));

  it('credits the referrer as the order is credited, once, whatever the repeats', async () => {
    const referrer = await signedInUser(server);
    const friend = await signedInUser(server, 'Friend', { referralCode: (await me(referrer.client)).referralCode });
    const o = await order(server, friend.client, 12);
    await Promise.all([o.notify('finished'), o.notify('finished'), o.notify('finished')]);
    const earning = (12n * GB * 25n) / 100n;
    expect((await me(referrer.client)).credits).toBe(Number(earning));
    expect((await me(friend.client)).credits).toBe(Number(12n * GB));
    expect((await referrer.client.get<Summary>('/api/referrals')).body).toMatchObject({ pendingBytes: 0, earnedBytes: Number(earning) });
    expect((await creditDueReferrals(server.deps.db, new Date(Date.now() + DAY))).credited).toBe(0);
    await expectLedgerHolds(server, referrer.user.id);
  });
});

describe('referrals between strangers only', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: RELAXED_LIMITS, trustProxy: true });
  });
  afterAll(() => server.close());
  afterEach(() => expectLedgerOk(server));

  const from = (ip: string) => ({ client: server.client({ ip }) });
  const summary = async (client: HttpClient) => (await client.get<Summary>('/api/referrals')).body;

  it("a referee who signed up from the referrer's IPv4 /24 or IPv6 /64 earns nothing, shown as not eligible with the reason", async () => {
    for (const [mine, theirs] of [
      ['198.51.100.7', '198.51.100.200'],
      ['2001:db8:1:2::1', '2001:db8:1:2:ffff::9'],
    ] as const) {
      const referrer = await signedInUser(server, 'Referrer', from(mine));
      const code = (await me(referrer.client)).referralCode;
      const twin = await signedInUser(server, 'Twin', { ...from(theirs), referralCode: code });
      await (await order(server, twin.client)).notify('finished');
      const s = await summary(referrer.client);
      expect(s).toMatchObject({ referred: 1, pendingBytes: 0, earnedBytes: 0 });
      expect(s.entries).toEqual([expect.objectContaining({ orderGb: 12, bytes: 0, status: 'not_eligible', reason: 'Signed up from the same network as you' })]);
      expect((await creditDueReferrals(server.deps.db, new Date(Date.now() + 30 * DAY))).credited).toBe(0);
      expect((await me(referrer.client)).credits).toBe(0);
    }
  });

  it("a stranger's network earns; so does the referrer's own network once the referrer has not used it for 30 days", async () => {
    const referrer = await signedInUser(server, 'Referrer', from('203.0.113.10'));
    const code = (await me(referrer.client)).referralCode;
    const stranger = await signedInUser(server, 'Stranger', { ...from('198.51.101.5'), referralCode: code });
    await (await order(server, stranger.client)).notify('finished');
    expect((await summary(referrer.client)).entries).toEqual([expect.objectContaining({ status: 'pending', reason: null, bytes: Number((12n * GB) / 10n) })]);

    const old = new Date(Date.now() - 31 * DAY);
    await server.deps.db.update(userNetworks).set({ firstSeenAt: old, lastSeenAt: old }).where(eq(userNetworks.userId, referrer.user.id));
    const later = await signedInUser(server, 'Later', { ...from('203.0.113.99'), referralCode: code });
    await (await order(server, later.client)).notify('finished');
    expect((await summary(referrer.client)).entries.map((e) => e.status)).toEqual(['pending', 'pending']);
  });

  it("an order paid from the referrer's payer id earns nothing", async () => {
    const referrer = await signedInUser(server, 'Referrer', from('192.0.2.10'));
    await (await order(server, referrer.client, 12, 'payer-shared')).notify('finished');
    const friend = await signedInUser(server, 'Friend', { ...from('198.51.102.20'), referralCode: (await me(referrer.client)).referralCode });
    await (await order(server, friend.client, 12, 'payer-shared')).notify('finished');
    await (await order(server, friend.client, 12, 'payer-own')).notify('finished');
    const s = await summary(referrer.client);
    expect(s.entries.map((e) => [e.status, e.reason])).toEqual([
      ['pending', null],
      ['not_eligible', 'Paid with the same payment account as you'],
    ]);
    expect(s.pendingBytes).toBe(Number((12n * GB) / 10n));
  });

  it('earnings cannot be spent on gift codes until they are due', async () => {
    const referrer = await signedInUser(server, 'Referrer', from('192.0.2.77'));
    const friend = await signedInUser(server, 'Friend', { ...from('198.51.103.1'), referralCode: (await me(referrer.client)).referralCode });
    await (await order(server, friend.client, 20)).notify('finished');
    expect((await summary(referrer.client)).pendingBytes).toBe(Number((20n * GB) / 10n));
    expect(await referrer.client.post('/api/gift-codes', { creditsGB: 1 })).toMatchObject({ status: 402, body: { error: 'Not enough data for this gift' } });
    expect((await creditDueReferrals(server.deps.db, new Date(Date.now() + 15 * DAY))).referrerIds).toContain(referrer.user.id);
    server.deps.cache.invalidate();
    expect((await referrer.client.post('/api/gift-codes', { creditsGB: 1 })).status).toBe(200);
  });
});
