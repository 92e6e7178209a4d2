import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payments } from '@proxyhub/db';
import { adminClient, expectLedgerOk } from './credits-helpers';
import { FakeNowPayments, NP_API_KEY, NP_IPN_SECRET, type FakePayment } from './fake-nowpayments';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

const GB = 1073741824;
const FULL = 12 * GB;
type Created = { success: boolean; invoiceUrl: string };

const balance = async (client: HttpClient) => (await client.get<{ user: { credits: number } }>('/auth/user')).body.user.credits;

/** Every ordering of a list (small lists only). */
function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

describe('underpaid and overpaid crypto (NOWPayments, signed notifications)', () => {
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

  const ipn = (body: unknown, sig: string) => server.client({ origin: null }).post('/webhooks/nowpayments', body, { 'x-nowpayments-sig': sig });

  async function order(client?: HttpClient) {
    const user = client ? { client } : await signedInUser(server);
    const r = await user.client.post<Created>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const orderId = String(np.invoices.at(-1)!.body.order_id);
    return { client: user.client, orderId, p: np.pay(orderId, 10.8, 'waiting') };
  }

  /** The provider's record moves to this state; then it notifies (the server re-reads the record). */
  async function deliver(p: FakePayment, status: string, paidShare: number) {
    p.payment_status = status;
    p.actually_paid = p.pay_amount * paidShare;
    const { body, sig } = np.ipn(p);
    const r = await ipn(body, sig);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { status: string; credited: boolean };
  }

  it('credits the paid share at once, then only the rest when finished', async () => {
    const o = await order();
    expect(await deliver(o.p, 'partially_paid', 0.5)).toMatchObject({ status: 'partially_paid', credited: true });
    // floor(12 GB x 540 / 1080)
    expect(await balance(o.client)).toBe(FULL / 2);
    const [row] = await server.deps.db.select().from(payments).where(eq(payments.id, o.orderId));
    expect(row).toMatchObject({ status: 'partially_paid', paidCents: 540, creditedBytes: BigInt(FULL / 2) });
    const billing = await o.client.get<{ entries: Array<{ kind: string; bytes: string }> }>('/api/billing');
    expect(billing.body.entries[0]).toMatchObject({ kind: 'crypto', bytes: String(FULL / 2) });
    expect((billing.body.entries[0] as unknown as { description: string }).description).toBe(
      'Crypto payment: 12 GB for $10.80. Partially paid: 6.00 GB credited, $5.40 owed',
    );
    // The same line as a key and its values, for any language to word.
    expect(billing.body.entries[0]).toMatchObject({
      line: { key: 'cryptoPartial', values: { gb: 12, cents: 1080, owedCents: 540, creditedBytes: String(FULL / 2) } },
    });
    // The rest is paid on the order's invoice: Billing links to it; a part-paid order cannot be cancelled.
    expect(billing.body.entries[0]).toMatchObject({
      invoiceUrl: expect.stringMatching(/^https:\/\/nowpayments\.example\/payment\/\?iid=/),
      cancellable: false,
    });
    const cancel = await o.client.post<{ error: string }>('/auth/cancel-crypto-payment', { paymentId: o.orderId });
    expect(cancel).toMatchObject({ status: 409, body: { error: 'Only an order waiting for payment can be cancelled' } });
    // The same partial again: nothing more. A larger partial: up to its share.
    expect((await deliver(o.p, 'partially_paid', 0.5)).credited).toBe(false);
    expect((await deliver(o.p, 'partially_paid', 0.75)).credited).toBe(true);
    expect(await balance(o.client)).toBe(Math.floor((FULL * 810) / 1080));
    expect((await deliver(o.p, 'finished', 1)).credited).toBe(true);
    expect(await balance(o.client)).toBe(FULL);
    // Late and repeated: nothing.
    expect((await deliver(o.p, 'partially_paid', 0.9)).credited).toBe(false);
    expect((await deliver(o.p, 'finished', 1)).credited).toBe(false);
    expect(await balance(o.client)).toBe(FULL);
  });

  it('an overpayment credits the order GB only', async () => {
    const o = await order();
    expect((await deliver(o.p, 'partially_paid', 1.5)).credited).toBe(true);
    expect(await balance(o.client)).toBe(FULL);
    const p2 = await order();
    await deliver(p2.p, 'finished', 3);
    expect(await balance(p2.client)).toBe(FULL);
  });

  it('never credits more than the order GB, whatever the order of the notifications', async () => {
    const steps: Array<[string, number]> = [
      ['partially_paid', 0.3],
      ['partially_paid', 0.6],
      ['finished', 1],
      ['partially_paid', 1.2],
    ];
    const u = await signedInUser(server);
    let expected = 0;
    for (const seq of permutations(steps)) {
      const o = await order(u.client);
      let credited = 0;
      for (const [status, share] of seq) {
        await deliver(o.p, status, share);
        const [row] = await server.deps.db.select().from(payments).where(eq(payments.id, o.orderId));
        credited = Number(row!.creditedBytes);
        expect(credited).toBeLessThanOrEqual(FULL);
      }
      expect(credited, JSON.stringify(seq)).toBe(FULL);
      expected += FULL;
      expect(await balance(u.client)).toBe(expected);
    }
  }, 120_000);

  it('a refund after a partial payment takes back what was credited', async () => {
    const o = await order();
    await deliver(o.p, 'partially_paid', 0.5);
    expect(await balance(o.client)).toBe(FULL / 2);
    await deliver(o.p, 'refunded', 0.5);
    expect(await balance(o.client)).toBe(0);
  });
});

describe('the sandbox pays part', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  afterEach(() => expectLedgerOk(server));

  const form = (client: HttpClient, path: string, body: string) => client.request('POST', path, body, { 'content-type': 'application/x-www-form-urlencoded' });

  it('offers "Pay part"; outcome=partially_paid with paidUsd credits the share, finished the rest', async () => {
    const { client } = await signedInUser(server);
    const r = await client.post<Created>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
    const path = new URL(r.body.invoiceUrl).pathname;
    const page = await client.get(path, { accept: 'text/html' });
    expect(page.body).toContain('data-testid="sandbox-pay-part"');
    expect(page.body).toContain('Pay part');

    expect(await form(client, path, 'outcome=partially_paid')).toMatchObject({
      status: 400,
      body: { error: 'paidUsd must be an amount in dollars, such as 5.40' },
    });
    expect((await form(client, path, 'outcome=partially_paid&paidUsd=abc')).status).toBe(400);
    expect(await balance(client)).toBe(0);

    const part = await form(client, path, 'outcome=partially_paid&paidUsd=5.40');
    expect(part.status).toBe(303);
    expect(part.headers.get('location')).toBe('http://localhost:3000/topup?payment=partially_paid');
    expect(await balance(client)).toBe(FULL / 2);
    expect((await client.get(path, { accept: 'text/html' })).body).toContain('partially_paid');

    await form(client, path, 'outcome=finished');
    expect(await balance(client)).toBe(FULL);
  });

  it('concurrent part, full and repeated payments of one order credit its GB (plus bonus) exactly', async () => {
    const admin = await adminClient(server);
    const code = `SBXBONUS${Date.now().toString(36).toUpperCase().slice(-6)}`;
    expect((await admin.post('/admin/promotions', { code, kind: 'bonus', bonusPercent: 10, maxRedemptions: 5 })).status).toBe(200);
    const { client } = await signedInUser(server);
    const r = await client.post<Created>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8, promoCode: code });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const path = new URL(r.body.invoiceUrl).pathname;
    const bodies = [
      'outcome=partially_paid&paidUsd=2.00',
      'outcome=finished',
      'outcome=partially_paid&paidUsd=9.00',
      'outcome=finished',
      'outcome=partially_paid&paidUsd=20',
    ];
    await Promise.all(Array.from({ length: 20 }, (_, i) => form(client, path, bodies[i % bodies.length]!)));
    expect(await balance(client)).toBe(Math.floor((FULL * 110) / 100));
  });
});
