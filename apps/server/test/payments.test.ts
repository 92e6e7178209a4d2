import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_SIGNATURE_HEADER, signSandboxNotification } from '@proxyhub/api';
import { creditEntries, paymentEvents, payments } from '@proxyhub/db';
import { adminClient, expectLedgerOk, sessionClient } from './credits-helpers';
import { FakeNowPayments, NP_API_KEY, NP_IPN_SECRET } from './fake-nowpayments';
import { RELAXED_LIMITS, signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

const GB = 1073741824;

type Created = { success: boolean; invoiceUrl: string; message: string };

const balance = async (client: HttpClient) => (await client.get<{ user: { credits: number } }>('/auth/user')).body.user.credits;
const paymentIdOf = (invoiceUrl: string) => invoiceUrl.split('/').at(-1)!;

describe('sandbox provider', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  afterEach(() => expectLedgerOk(server));

  const form = (client: HttpClient, path: string, outcome: string) =>
    client.request('POST', path, `outcome=${outcome}`, { 'content-type': 'application/x-www-form-urlencoded' });

  it('pays by a click on our own page, credits once and returns to /topup', async () => {
    const { client } = await signedInUser(server);
    const r = await client.post<Created>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: expect.any(String) });
    expect(r.body.invoiceUrl).toMatch(/^http:\/\/localhost:3000\/sandbox\/pay\/[0-9a-f-]{36}$/);
    const path = new URL(r.body.invoiceUrl).pathname;

    const page = await client.get(path, { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('data-testid="sandbox-pay"');
    expect(page.body).toContain('data-testid="sandbox-fail"');
    expect(page.body).not.toMatch(/<script/i);

    // The browser posts the form with its session cookie and an Origin header.
    const paid = await form(client, path, 'finished');
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe('http://localhost:3000/topup?payment=finished');
    expect(await balance(client)).toBe(12 * GB);

    const again = await form(client, path, 'finished');
    expect(again.headers.get('location')).toBe('http://localhost:3000/topup?payment=finished');
    const late = await form(client, path, 'failed');
    expect(late.headers.get('location')).toBe('http://localhost:3000/topup?payment=finished');
    expect(await balance(client)).toBe(12 * GB);

    const list = await sessionClient(server, client).credits.payments.query();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      provider: 'sandbox',
      gbAmount: 12,
      priceCents: 1080,
      creditsBytes: 12n * BigInt(GB),
      status: 'finished',
      creditedAt: expect.any(Date),
    });
    expect(list[0]!.events.map((e) => e.status)).toEqual(['waiting', 'finished', 'finished', 'failed']);
  });

  it('a failed payment credits nothing', async () => {
    const { client } = await signedInUser(server);
    const r = await client.post<Created>('/auth/create-crypto-payment', { gbAmount: 20, priceUsd: 18 });
    const failed = await form(client, new URL(r.body.invoiceUrl).pathname, 'failed');
    expect(failed.headers.get('location')).toBe('http://localhost:3000/topup?payment=failed');
    expect(await balance(client)).toBe(0);
    const [p] = await sessionClient(server, client).credits.payments.query();
    expect(p).toMatchObject({ status: 'failed', creditedAt: null });
  });

  it('recomputes the price on the server and refuses bad input without writing', async () => {
    const { client } = await signedInUser(server);
    const cases: Array<[unknown, number, string]> = [
      [{ gbAmount: 12, priceUsd: 1 }, 400, 'Price mismatch: 12GB costs $10.80. Please refresh and try again.'],
      [{ gbAmount: 100, priceUsd: 10 }, 400, 'Price mismatch: 100GB costs $90.00. Please refresh and try again.'],
      [{ gbAmount: 11, priceUsd: 10 }, 400, 'Minimum order is 12GB ($10)'],
      [{ gbAmount: -12, priceUsd: 10 }, 400, 'Minimum order is 12GB ($10)'],
      [{ gbAmount: 12.5, priceUsd: 11.25 }, 400, 'GB amount must be a whole number'],
      [{ gbAmount: 'twelve', priceUsd: 10.8 }, 400, 'GB amount must be a number'],
      [{ gbAmount: '12', priceUsd: 10.8 }, 400, 'GB amount must be a number'],
      [{ gbAmount: 1e12, priceUsd: 9e11 }, 400, 'Maximum order is 100000GB'],
      [{ gbAmount: 12 }, 400, 'Price must be a number'],
      [{ priceUsd: 10.8 }, 400, 'GB amount must be a number'],
      [{ gbAmount: 12, priceUsd: -10.8 }, 400, 'Price must not be negative'],
    ];
    for (const [body, status, error] of cases) {
      const r = await client.post('/auth/create-crypto-payment', body);
      expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status, error });
    }
    expect((await server.client().post('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 })).status).toBe(401);
    expect(await server.deps.db.select().from(payments)).toHaveLength(2);
  });

  it('refuses a forged sandbox webhook and unknown orders', async () => {
    const { client } = await signedInUser(server);
    const r = await client.post<Created>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
    const id = paymentIdOf(r.body.invoiceUrl);
    const body = { order_id: id, payment_id: 'x', payment_status: 'finished' as const, price_amount: 10.8, price_currency: 'usd' as const };
    const anon = server.client({ origin: null });
    const forged = await anon.post('/webhooks/sandbox', body, { [SANDBOX_SIGNATURE_HEADER]: 'ab'.repeat(64) });
    expect(forged).toMatchObject({ status: 401, body: { success: false, error: 'Invalid signature' } });
    const unsigned = await anon.post('/webhooks/sandbox', body);
    expect(unsigned.status).toBe(401);
    const cheap = { ...body, price_amount: 0.01 };
    const changed = await anon.post('/webhooks/sandbox', cheap, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(server.config.appSecret, cheap) });
    expect(changed).toMatchObject({ status: 400, body: { error: 'The payment amount does not match the order' } });
    const other = { ...body, order_id: '00000000-0000-4000-8000-000000000000' };
    expect((await anon.post('/webhooks/sandbox', other, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(server.config.appSecret, other) })).status).toBe(
      404,
    );
    expect(await balance(client)).toBe(0);
    expect(await server.deps.db.select().from(paymentEvents).where(eq(paymentEvents.paymentId, id))).toHaveLength(1);
    // The genuine signed delivery goes through the same path.
    const ok = await anon.post('/webhooks/sandbox', body, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(server.config.appSecret, body) });
    expect(ok).toMatchObject({ status: 200, body: { success: true, status: 'finished', credited: true } });
    expect(await balance(client)).toBe(12 * GB);
    expect((await client.get('/sandbox/pay/not-a-uuid', { accept: 'text/html' })).status).toBe(404);
  });

  it('limits how many orders a user opens', async () => {
    const limited = await startTestServer({ rateLimits: { ...RELAXED_LIMITS, payment: { points: 2, durationSeconds: 3600 } } });
    try {
      const { client } = await signedInUser(limited);
      for (let i = 0; i < 2; i++) expect((await client.post('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 })).status).toBe(200);
      const r = await client.post('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
      expect(r).toMatchObject({ status: 429, body: { error: expect.stringMatching(/^Too many attempts/) } });
      expect(await limited.deps.db.select().from(payments)).toHaveLength(2);
    } finally {
      await limited.close();
    }
  });

  it('is gone in production', async () => {
    const prod = await startTestServer({ production: true, payments: { provider: 'sandbox', nowpayments: null } });
    try {
      const { client } = await signedInUser(prod);
      const r = await client.post('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
      expect(r.status).toBe(503);
      expect((await client.get('/sandbox/pay/00000000-0000-4000-8000-000000000000')).status).toBe(404);
      expect((await prod.client({ origin: null }).post('/webhooks/sandbox', {})).status).toBe(404);
    } finally {
      await prod.close();
    }
  });
});

describe('NOWPayments provider (fake server on loopback)', () => {
  let server: TestServer;
  let np: FakeNowPayments;
  beforeAll(async () => {
    np = await new FakeNowPayments().start();
    server = await startTestServer({ payments: { provider: 'nowpayments', nowpayments: { apiUrl: np.url, apiKey: NP_API_KEY, ipnSecret: NP_IPN_SECRET } } });
  });
  afterAll(async () => {
    await server.close();
    await np.close();
  });
  afterEach(() => expectLedgerOk(server));

  const ipn = (body: unknown, sig?: string) => server.client({ origin: null }).post('/webhooks/nowpayments', body, sig ? { 'x-nowpayments-sig': sig } : {});

  async function order(gbAmount = 12, priceUsd = 10.8) {
    const user = await signedInUser(server);
    const r = await user.client.post<Created>('/auth/create-crypto-payment', { gbAmount, priceUsd });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const invoice = np.invoices.at(-1)!;
    return { ...user, invoiceUrl: r.body.invoiceUrl, orderId: String(invoice.body.order_id), invoice };
  }

  it('creates an invoice with the server price and returns its invoice_url', async () => {
    const o = await order(50, 45);
    expect(o.invoiceUrl).toMatch(/^https:\/\/nowpayments\.example\/payment\/\?iid=\d+$/);
    expect(o.invoice.headers['x-api-key']).toBe(NP_API_KEY);
    expect(o.invoice.body).toEqual({
      price_amount: 45,
      price_currency: 'usd',
      order_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      order_description: 'ProxyHub 50 GB',
      ipn_callback_url: 'http://localhost:3000/webhooks/nowpayments',
      success_url: 'http://localhost:3000/topup?payment=finished',
      cancel_url: 'http://localhost:3000/topup?payment=failed',
    });
  });

  it('credits once under 50 concurrent deliveries of the same finished IPN', async () => {
    const o = await order();
    const p = np.pay(o.orderId, 10.8, 'finished');
    const { body, sig } = np.ipn(p);
    const results = await Promise.all(Array.from({ length: 50 }, () => ipn(body, sig)));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(results.filter((r) => r.body.credited === true)).toHaveLength(1);
    expect(await balance(o.client)).toBe(12 * GB);
    const entries = await server.deps.db
      .select()
      .from(creditEntries)
      .where(eq(creditEntries.sourceKey, `payment:${o.orderId}`));
    expect(entries).toHaveLength(1);
    const [row] = await server.deps.db.select().from(payments).where(eq(payments.id, o.orderId));
    expect(row).toMatchObject({ status: 'finished', providerPaymentId: String(p.payment_id) });
  });

  it('refuses forged signatures, changed amounts and unknown orders, changing nothing', async () => {
    const o = await order();
    const p = np.pay(o.orderId, 10.8, 'finished');
    const { body, sig } = np.ipn(p);
    expect(await ipn(body)).toMatchObject({ status: 401, body: { error: 'Invalid signature' } });
    expect(
      (
        await ipn(
          body,
          sig.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
        )
      ).status,
    ).toBe(401);
    expect((await ipn(body, np.ipn(p, {}, 'wrong-secret').sig)).status).toBe(401);
    // Signed over other content than what arrives.
    expect((await ipn({ ...body, price_amount: 0.5 }, sig)).status).toBe(401);
    // A correctly signed IPN whose amount differs from the order.
    const cheap = np.ipn(p, { price_amount: 1 });
    expect(await ipn(cheap.body, cheap.sig)).toMatchObject({ status: 400, body: { error: 'The payment amount does not match the order' } });
    // The provider's own record says another amount.
    const other = np.pay(o.orderId, 5, 'finished');
    const mismatch = np.ipn(other, { price_amount: 10.8 });
    expect((await ipn(mismatch.body, mismatch.sig)).status).toBe(400);
    // Unknown orders: a well-formed id we never issued, and garbage.
    const stranger = np.ipn(np.pay('00000000-0000-4000-8000-000000000000', 10.8, 'finished'));
    expect(await ipn(stranger.body, stranger.sig)).toMatchObject({ status: 404, body: { error: 'Unknown order' } });
    const garbage = np.ipn(np.pay("1' or '1'='1", 10.8, 'finished'));
    expect((await ipn(garbage.body, garbage.sig)).status).toBe(404);
    expect(await ipn('not json at all', 'ab'.repeat(64))).toMatchObject({ status: 400, body: { error: 'Malformed JSON body' } });
    expect((await ipn([1, 2], 'ab'.repeat(64))).status).toBe(401);

    expect(await balance(o.client)).toBe(0);
    expect(await server.deps.db.select().from(paymentEvents).where(eq(paymentEvents.paymentId, o.orderId))).toHaveLength(1);
  });

  it('trusts the re-read payment, not the delivery; never moves backwards; holds partial payments', async () => {
    const o = await order();
    const p = np.pay(o.orderId, 10.8, 'waiting');
    // The IPN claims finished but the API says waiting: nothing is credited.
    const claim = np.ipn(p, { payment_status: 'finished' });
    expect(await ipn(claim.body, claim.sig)).toMatchObject({ status: 200, body: { status: 'waiting', credited: false } });
    expect(await balance(o.client)).toBe(0);

    p.payment_status = 'partially_paid';
    const partial = np.ipn(p);
    expect(await ipn(partial.body, partial.sig)).toMatchObject({ status: 200, body: { status: 'partially_paid', credited: false } });
    expect(await balance(o.client)).toBe(0);

    p.payment_status = 'finished';
    const done = np.ipn(p);
    expect(await ipn(done.body, done.sig)).toMatchObject({ status: 200, body: { status: 'finished', credited: true } });

    // A late "confirming" delivery after "finished" (out of order) changes nothing.
    p.payment_status = 'confirming';
    const late = np.ipn(p);
    expect(await ipn(late.body, late.sig)).toMatchObject({ status: 200, body: { status: 'finished', credited: false } });
    expect(await balance(o.client)).toBe(12 * GB);

    const [view] = await sessionClient(server, o.client).credits.payments.query();
    expect(view!.events.map((e) => e.status)).toEqual(['waiting', 'waiting', 'partially_paid', 'finished', 'confirming']);
  });

  it('a refund after the credit writes a reversal entry', async () => {
    const o = await order();
    const p = np.pay(o.orderId, 10.8, 'finished');
    const paid = np.ipn(p);
    await ipn(paid.body, paid.sig);
    expect(await balance(o.client)).toBe(12 * GB);
    p.payment_status = 'refunded';
    const refund = np.ipn(p);
    expect(await ipn(refund.body, refund.sig)).toMatchObject({ status: 200, body: { status: 'refunded' } });
    expect(await ipn(refund.body, refund.sig)).toMatchObject({ status: 200, body: { status: 'refunded' } });
    expect(await balance(o.client)).toBe(0);
    const reversal = await server.deps.db
      .select()
      .from(creditEntries)
      .where(eq(creditEntries.sourceKey, `payment-reversal:${o.orderId}`));
    expect(reversal).toHaveLength(1);
    expect(reversal[0]).toMatchObject({ kind: 'reversal', amountBytes: -12n * BigInt(GB) });
  });

  it('answers 503 when the provider is down and marks the order failed', async () => {
    np.failInvoices = true;
    try {
      const { client } = await signedInUser(server);
      const r = await client.post('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
      expect(r).toMatchObject({ status: 503, body: { success: false, error: 'The payment provider is not reachable right now. Please try again later.' } });
      const [p] = await sessionClient(server, client).credits.payments.query();
      expect(p!.status).toBe('failed');
    } finally {
      np.failInvoices = false;
    }
  });

  it('shows every order with its history and the user email to the admin', async () => {
    const admin = await adminClient(server);
    const r = await admin.get<{ payments: Array<{ userEmail: string; events: unknown[]; status: string }>; total: number }>('/admin/payments?pageSize=100');
    expect(r.status).toBe(200);
    expect(r.body.total).toBeGreaterThanOrEqual(5);
    expect(r.body.payments[0]).toMatchObject({ userEmail: expect.stringContaining('@example.com'), events: expect.any(Array) });
    const { client } = await signedInUser(server);
    expect((await client.get('/admin/payments')).status).toBe(403);
  });
});
