import { eq, ilike } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPromotion } from '@proxyhub/api';
import { auditLog, promotionRedemptions, promotions } from '@proxyhub/db';
import { adminClient, expectLedgerOk, internalClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

const GB = 1073741824;

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

let seq = 0;
const freshCode = (prefix = 'PROMO') => `${prefix}${Date.now().toString(36).toUpperCase().slice(-6)}${++seq}`.slice(0, 20);

type Promotion = { code: string; kind: string; redemptions: number; creditedBytes: number; revenueCents?: number; enabled: boolean };

async function promote(body: Record<string, unknown>) {
  const r = await admin.post<{ success: boolean; promotion: Promotion }>('/admin/promotions', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.success).toBe(true);
  return r.body.promotion;
}

const balance = async (client: HttpClient) => (await client.get<{ user: { credits: number } }>('/auth/user')).body.user.credits;
const listed = async (code: string) => (await admin.get<{ promotions: Promotion[] }>('/admin/promotions')).body.promotions.find((p) => p.code === code)!;

describe('creating promotions', () => {
  it('answers { success, promotion } and lists it; the code is stored uppercase', async () => {
    const code = freshCode('GIVE');
    const p = await promote({
      code: code.toLowerCase(),
      kind: 'credit',
      creditsGB: 1.5,
      maxRedemptions: 50,
      maxPerUser: 1,
      firstPurchaseOnly: false,
      expiresAt: null,
      campaign: 'launch',
    });
    expect(p).toMatchObject({
      code,
      kind: 'credit',
      creditsGB: 1.5,
      creditsBytes: 1610612736,
      maxRedemptions: 50,
      maxPerUser: 1,
      campaign: 'launch',
      enabled: true,
      redemptions: 0,
    });
    const bonus = await promote({ code: freshCode('BON'), kind: 'bonus', bonusPercent: 20, maxRedemptions: 10, expiresAt: null });
    expect(bonus).toMatchObject({ kind: 'bonus', bonusPercent: 20, maxPerUser: 1, firstPurchaseOnly: false, revenueCents: 0 });
    expect(await listed(code)).toMatchObject({ code, redemptions: 0, creditedBytes: 0 });
  });

  it('refuses bad input with a 400 naming the field, and a taken code with a 409, writing nothing', async () => {
    const before = (await server.deps.db.select().from(promotions)).length;
    const ok = { code: freshCode(), kind: 'credit', creditsGB: 1, maxRedemptions: 5 };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...ok, code: 'AB1' }, 'Code must be 4-20 letters A-Z or digits'],
      [{ ...ok, code: 'A'.repeat(21) }, 'Code must be 4-20 letters A-Z or digits'],
      [{ ...ok, code: 'BAD-CODE' }, 'Code must be 4-20 letters A-Z or digits'],
      [{ ...ok, kind: 'gift' }, 'Kind must be credit or bonus'],
      [{ ...ok, creditsGB: 0.05 }, 'Credits must be at least 0.1 GB'],
      [{ ...ok, creditsGB: 0.25 }, 'Credits must be in steps of 0.1 GB'],
      [{ ...ok, creditsGB: undefined }, 'Credits (GB) must be a number'],
      [{ ...ok, kind: 'bonus', bonusPercent: 0 }, 'Bonus must be at least 1'],
      [{ ...ok, kind: 'bonus', bonusPercent: 101 }, 'Bonus must be at most 100'],
      [{ ...ok, kind: 'bonus' }, 'Bonus must be a number'],
      [{ ...ok, maxRedemptions: 0 }, 'Max redemptions must be at least 1'],
      [{ ...ok, maxRedemptions: 1_000_001 }, 'Max redemptions must be at most 1000000'],
      [{ ...ok, maxPerUser: 0 }, 'Max per user must be at least 1'],
      [{ ...ok, expiresAt: '2000-01-01T00:00:00Z' }, 'Expiry must be in the future'],
      [{ ...ok, campaign: 'x'.repeat(41) }, 'Campaign must be at most 40 characters'],
    ];
    for (const [body, error] of cases) {
      const r = await admin.post('/admin/promotions', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ success: false, error });
    }
    expect((await server.deps.db.select().from(promotions)).length).toBe(before);

    const taken = await promote({ ...ok });
    const again = await admin.post('/admin/promotions', { ...ok, code: taken.code.toLowerCase() });
    expect(again).toMatchObject({ status: 409, body: { success: false, error: 'This code is already in use' } });
    // A top-up code's text is taken too.
    const minted = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: 1, quantity: 1, expiresAt: null });
    const clash = await admin.post('/admin/promotions', { ...ok, code: minted.body.codes[0]!.code });
    expect(clash.status).toBe(409);
    // Two admins at once with one code: one wins.
    const same = freshCode('RACE');
    const raced = await Promise.all([1, 2, 3].map(() => admin.post('/admin/promotions', { ...ok, code: same })));
    expect(raced.map((r) => r.status).sort()).toEqual([200, 409, 409]);
  });

  it('is for admins and internal tools only; internal tools call the service the giveaway bot uses', async () => {
    const { client } = await signedInUser(server);
    expect((await client.post('/admin/promotions', { code: freshCode(), kind: 'credit', creditsGB: 1, maxRedemptions: 1 })).status).toBe(403);
    expect((await server.client().get('/admin/promotions')).status).toBe(401);
    const viaKey = await internalClient(server).admin.createPromotion.mutate({
      code: freshCode('TG'),
      kind: 'credit',
      creditsGB: 2,
      maxRedemptions: 3,
      maxPerUser: 1,
      campaign: 'telegram',
      expiresAt: null,
    });
    expect(viaKey.promotion).toMatchObject({ createdBy: 'internal', campaign: 'telegram' });
    const direct = await server.deps.db.transaction((tx) =>
      createPromotion(tx, {
        code: freshCode('BOT'),
        kind: 'credit',
        creditsGB: 1,
        maxRedemptions: 2,
        maxPerUser: 1,
        firstPurchaseOnly: false,
        expiresAt: null,
        campaign: 'telegram',
        createdByAdminId: null,
        createdBy: 'telegram',
      }),
    );
    expect(direct).toMatchObject({ createdBy: 'telegram', maxRedemptions: 2 });
  });
});

describe('redeeming a credit promotion', () => {
  it('answers as a code does; refusals say why', async () => {
    const code = freshCode('GIVE');
    await promote({ code, kind: 'credit', creditsGB: 1, maxRedemptions: 2, maxPerUser: 1 });
    const a = await signedInUser(server);
    const r = await a.client.post('/auth/redeem-code', { code: code.toLowerCase() });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ success: true, credits: 1024, message: 'Successfully redeemed 1024 MB', newBalance: GB });
    expect(await a.client.post('/auth/redeem-code', { code })).toMatchObject({
      status: 409,
      body: { success: false, error: 'You have already used this code' },
    });
    const b = await signedInUser(server);
    expect((await b.client.post('/auth/redeem-code', { code })).status).toBe(200);
    const c = await signedInUser(server);
    expect(await c.client.post('/auth/redeem-code', { code })).toMatchObject({
      status: 409,
      body: { success: false, error: 'This code has reached its limit' },
    });
    expect(await balance(c.client)).toBe(0);
    expect(await listed(code)).toMatchObject({ redemptions: 2, creditedBytes: 2 * GB });

    // Billing names the promotion.
    const billing = await a.client.get<{ entries: Array<{ kind: string; description: string; bytes: string }> }>('/api/billing');
    expect(billing.body.entries[0]).toMatchObject({ kind: 'code', description: `Promotion ${code}`, bytes: String(GB) });
  });

  it('expired, stopped and first-purchase-only promotions are refused', async () => {
    const code = freshCode('SOON');
    await promote({ code, kind: 'credit', creditsGB: 1, maxRedemptions: 5, expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await server.deps.db
      .update(promotions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(promotions.code, code));
    const u = await signedInUser(server);
    expect(await u.client.post('/auth/redeem-code', { code })).toMatchObject({ status: 400, body: { error: 'This code has expired.' } });

    const stop = freshCode('STOP');
    await promote({ code: stop, kind: 'credit', creditsGB: 1, maxRedemptions: 5 });
    const stopped = await admin.request('PATCH', `/admin/promotions/${stop.toLowerCase()}`, JSON.stringify({ enabled: false }), {
      'content-type': 'application/json',
    });
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
    expect(stopped.body).toMatchObject({ success: true, promotion: { code: stop, enabled: false } });
    expect(await u.client.post('/auth/redeem-code', { code: stop })).toMatchObject({
      status: 404,
      body: { error: 'Invalid code. Please check the code and try again.' },
    });
    expect(
      (await admin.request('PATCH', '/admin/promotions/NOSUCHPROMO', JSON.stringify({ enabled: false }), { 'content-type': 'application/json' })).status,
    ).toBe(404);

    const first = freshCode('FIRST');
    await promote({ code: first, kind: 'credit', creditsGB: 1, maxRedemptions: 5, firstPurchaseOnly: true });
    const newcomer = await signedInUser(server);
    expect((await newcomer.client.post('/auth/redeem-code', { code: first })).status).toBe(200);
    // A user who already redeemed a code is no first purchaser.
    const minted = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: 1, quantity: 1, expiresAt: null });
    const regular = await signedInUser(server);
    expect((await regular.client.post('/auth/redeem-code', { code: minted.body.codes[0]!.code })).status).toBe(200);
    expect(await regular.client.post('/auth/redeem-code', { code: first })).toMatchObject({
      status: 403,
      body: { success: false, error: 'This code is for first purchases only' },
    });

    const audit = await server.deps.db
      .select()
      .from(auditLog)
      .where(ilike(auditLog.target, `code:${stop}`));
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['admin.createPromotion', 'admin.updatePromotion']));
  });

  it('exactly maxRedemptions when 200 users redeem at once', async () => {
    const code = freshCode('RUSH');
    await promote({ code, kind: 'credit', creditsGB: 0.5, maxRedemptions: 37, maxPerUser: 1 });
    const users: HttpClient[] = [];
    for (let i = 0; i < 200; i += 20) users.push(...(await Promise.all(Array.from({ length: 20 }, () => signedInUser(server)))).map((u) => u.client));
    const results = await Promise.all(users.map((c) => c.post('/auth/redeem-code', { code })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(37);
    expect(results.filter((r) => r.status === 409).map((r) => r.body.error)).toEqual(Array(163).fill('This code has reached its limit'));
    const p = await listed(code);
    expect(p).toMatchObject({ redemptions: 37, creditedBytes: 37 * Number(536870912n) });
    const [row] = await server.deps.db.select().from(promotions).where(eq(promotions.code, code));
    expect(await server.deps.db.select().from(promotionRedemptions).where(eq(promotionRedemptions.promotionId, row!.id))).toHaveLength(37);
  }, 180_000);

  it('exactly maxPerUser when one user redeems 20 times at once', async () => {
    const code = freshCode('MANY');
    await promote({ code, kind: 'credit', creditsGB: 1, maxRedemptions: 100, maxPerUser: 3 });
    const u = await signedInUser(server);
    const results = await Promise.all(Array.from({ length: 20 }, () => u.client.post('/auth/redeem-code', { code })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 409).map((r) => r.body.error)).toEqual(Array(17).fill('You have already used this code'));
    expect(await balance(u.client)).toBe(3 * GB);
  });
});

describe('first purchase means first', () => {
  it('20 new users each redeeming two first-purchase promotions at once get exactly one', async () => {
    const [a, b] = [freshCode('FPA'), freshCode('FPB')];
    for (const code of [a, b]) await promote({ code, kind: 'credit', creditsGB: 1, maxRedemptions: 1000, firstPurchaseOnly: true });
    const users: HttpClient[] = [];
    for (let i = 0; i < 20; i += 10) users.push(...(await Promise.all(Array.from({ length: 10 }, () => signedInUser(server)))).map((u) => u.client));
    const attempts = await Promise.all(users.map((c) => Promise.all([a, b].map((code) => c.post('/auth/redeem-code', { code })))));
    for (const results of attempts) {
      expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
      expect(results.find((r) => r.status === 403)!.body).toMatchObject({ error: 'This code is for first purchases only' });
    }
    for (const c of users) expect(await balance(c)).toBe(GB);
    expect((await listed(a)).redemptions + (await listed(b)).redemptions).toBe(20);
  }, 180_000);

  it('a first-purchase code and a top-up code at once: the promotion only if it came first', async () => {
    const first = freshCode('FPC');
    await promote({ code: first, kind: 'credit', creditsGB: 2, maxRedemptions: 1000, firstPurchaseOnly: true });
    const minted = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: 1, quantity: 10, expiresAt: null });
    const users = await Promise.all(minted.body.codes.map(() => signedInUser(server)));
    await Promise.all(
      users.map((u, i) =>
        Promise.all([u.client.post('/auth/redeem-code', { code: first }), u.client.post('/auth/redeem-code', { code: minted.body.codes[i]!.code })]),
      ),
    );
    // Whatever the order, no user holds both: the code's 1 GB, plus 2 GB only where the promotion won.
    const [row] = await server.deps.db.select().from(promotions).where(eq(promotions.code, first));
    const winners = new Set(
      (await server.deps.db.select().from(promotionRedemptions).where(eq(promotionRedemptions.promotionId, row!.id))).map((r) => r.userId),
    );
    for (const u of users) expect(await balance(u.client)).toBe(winners.has(u.user.id) ? 3 * GB : GB);
  }, 180_000);
});

describe('a bonus promotion on a crypto order', () => {
  const form = (client: HttpClient, path: string, body: string) => client.request('POST', path, body, { 'content-type': 'application/x-www-form-urlencoded' });

  it('keeps the price, credits GB x (1 + bonus), counts one use when paid (not when created)', async () => {
    const code = freshCode('PLUS');
    await promote({ code, kind: 'bonus', bonusPercent: 20, maxRedemptions: 5 });
    const u = await signedInUser(server);
    const preview = await u.client.get(
      `/trpc/credits.promoPreview?input=${encodeURIComponent(JSON.stringify({ json: { code: code.toLowerCase(), gbAmount: 12 } }))}`,
    );
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    const r = await u.client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8, promoCode: code.toLowerCase() });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await listed(code)).toMatchObject({ redemptions: 0 });
    const path = new URL(r.body.invoiceUrl).pathname;
    expect((await form(u.client, path, 'outcome=finished')).status).toBe(303);
    const expected = Math.floor((12 * GB * 120) / 100);
    expect(await balance(u.client)).toBe(expected);
    expect(await listed(code)).toMatchObject({ redemptions: 1, revenueCents: 1080, creditedBytes: expected - 12 * GB });
    // Repeats credit nothing more.
    await form(u.client, path, 'outcome=finished');
    expect(await balance(u.client)).toBe(expected);
  });

  it('an unusable promo code is a 400 with the same messages, and no order', async () => {
    const u = await signedInUser(server);
    const credit = freshCode('CRED');
    await promote({ code: credit, kind: 'credit', creditsGB: 1, maxRedemptions: 5 });
    const full = freshCode('FULL');
    await promote({ code: full, kind: 'bonus', bonusPercent: 10, maxRedemptions: 1 });
    const other = await signedInUser(server);
    const o = await other.client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8, promoCode: full });
    await form(other.client, new URL(o.body.invoiceUrl).pathname, 'outcome=finished');
    const cases: Array<[string, string]> = [
      ['NOSUCHCODE', 'Invalid code. Please check the code and try again.'],
      [full, 'This code has reached its limit'],
      [credit, 'This code is not a top-up bonus: redeem it as a code'],
    ];
    for (const [promoCode, error] of cases) {
      const r = await u.client.post('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8, promoCode });
      expect(r, promoCode).toMatchObject({ status: 400, body: { success: false, error } });
    }
    const mine = await u.client.get<{ entries: unknown[] }>('/api/billing');
    expect(mine.body.entries).toHaveLength(0);
  });

  it('a bonus whose promotion filled up before payment is dropped, keeping the limit exact', async () => {
    const code = freshCode('RACEB');
    await promote({ code, kind: 'bonus', bonusPercent: 50, maxRedemptions: 1 });
    const a = await signedInUser(server);
    const b = await signedInUser(server);
    const oa = await a.client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8, promoCode: code });
    const ob = await b.client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8, promoCode: code });
    await form(b.client, new URL(ob.body.invoiceUrl).pathname, 'outcome=finished');
    await form(a.client, new URL(oa.body.invoiceUrl).pathname, 'outcome=finished');
    expect(await balance(b.client)).toBe(18 * GB);
    expect(await balance(a.client)).toBe(12 * GB);
    expect(await listed(code)).toMatchObject({ redemptions: 1 });
  });
  it('a first-purchase bonus order paid after another purchase is credited without the bonus, and its receipt says so', async () => {
    const code = freshCode('FPBON');
    await promote({ code, kind: 'bonus', bonusPercent: 50, maxRedemptions: 100, firstPurchaseOnly: true });
    const u = await signedInUser(server);
    const o = await u.client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8, promoCode: code });
    expect(o.status, JSON.stringify(o.body)).toBe(200);
    const paymentId = o.body.invoiceUrl.split('/').at(-1)!;
    const minted = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: 1, quantity: 1, expiresAt: null });
    expect((await u.client.post('/auth/redeem-code', { code: minted.body.codes[0]!.code })).status).toBe(200);
    expect((await form(u.client, new URL(o.body.invoiceUrl).pathname, 'outcome=finished')).status).toBe(303);
    expect(await balance(u.client)).toBe(13 * GB);
    expect(await listed(code)).toMatchObject({ redemptions: 0 });
    const receipt = await u.client.get<string>(`/billing/receipts/${paymentId}`, { accept: 'text/html' });
    expect(receipt.status).toBe(200);
    expect(receipt.body).toContain('data-testid="receipt-gb">12.00 GB<');
    expect(receipt.body).toContain(`data-testid="receipt-bonus">${code} bonus not applied: This code is for first purchases only<`);
    const r = await u.client.get(`/trpc/billing.receipt?input=${encodeURIComponent(JSON.stringify({ json: { paymentId } }))}`);
    expect(r.body).toMatchObject({ result: { data: { json: { bonusNote: `${code} bonus not applied: This code is for first purchases only` } } } });
  });

  it('two first-purchase bonus orders paid at once: one bonus', async () => {
    const [a, b] = [freshCode('FPX'), freshCode('FPY')];
    for (const code of [a, b]) await promote({ code, kind: 'bonus', bonusPercent: 50, maxRedemptions: 100, firstPurchaseOnly: true });
    const u = await signedInUser(server);
    const orders = [];
    for (const promoCode of [a, b])
      orders.push(await u.client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8, promoCode }));
    await Promise.all(orders.map((o) => form(u.client, new URL(o.body.invoiceUrl).pathname, 'outcome=finished')));
    expect(await balance(u.client)).toBe(30 * GB);
    expect((await listed(a)).redemptions + (await listed(b)).redemptions).toBe(1);
  });
});
