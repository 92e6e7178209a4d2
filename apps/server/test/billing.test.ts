/**
 * Billing history: GET /api/billing lists a user's credit entries and crypto orders newest first,
 * pages without gaps or repeats, answers CSV, works with the API key, shows no one else's; a paid
 * order has a printable receipt.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_SIGNATURE_HEADER, signSandboxNotification, type SandboxNotification } from '@proxyhub/api';
import { adminClient, expectLedgerOk, internalClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';
import { describeError } from '@proxyhub/core/i18n';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const GB = 1073741824n;

interface Entry {
  id: string;
  createdAt: string;
  kind: string;
  bytes: string;
  description: string;
  reference: string | null;
  history?: { status: string; at: string }[];
}
type Page = { entries: Entry[]; nextCursor: string | null };

async function redeemNewCode(client: HttpClient, gb: number): Promise<string> {
  const minted = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: gb, quantity: 1, expiresAt: null });
  const code = minted.body.codes[0]!.code;
  expect((await client.post('/auth/redeem-code', { code })).status).toBe(200);
  return code;
}

async function order(client: HttpClient, gbAmount: number, priceUsd: number): Promise<string> {
  const r = await client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount, priceUsd });
  expect(r.status).toBe(200);
  return r.body.invoiceUrl.split('/').at(-1)!;
}

async function webhook(paymentId: string, status: SandboxNotification['payment_status'], priceAmount: number) {
  const body: SandboxNotification = {
    order_id: paymentId,
    payment_id: `sbx-${paymentId.slice(0, 8)}`,
    payment_status: status,
    price_amount: priceAmount,
    price_currency: 'usd',
  };
  const r = await server
    .client({ origin: null })
    .post('/webhooks/sandbox', body, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(server.config.appSecret, body) });
  expect(r.status).toBe(200);
}

describe('GET /api/billing', () => {
  it('lists codes, paid, unpaid and refunded orders and a batch, newest first, with references and order history', async () => {
    const { client } = await signedInUser(server);
    const code = await redeemNewCode(client, 2.5);
    const unpaid = await order(client, 20, 18);
    const paid = await order(client, 12, 10.8);
    await webhook(paid, 'confirming', 10.8);
    await webhook(paid, 'finished', 10.8);
    await webhook(paid, 'finished', 10.8); // a repeated delivery is one step
    const { batchId } = await internalClient(server).credits.createBatch.mutate({ accounts: 1, creditsGB: 1.5, usageType: 'shop_proxy_admin' });
    expect((await client.post('/auth/process-batch', { batchId })).status).toBe(200);
    const refunded = await order(client, 15, 13.5);
    await webhook(refunded, 'finished', 13.5);
    await webhook(refunded, 'refunded', 13.5);

    const r = await client.get<Page>('/api/billing');
    expect(r.status).toBe(200);
    expect(r.body.nextCursor).toBeNull();
    const e = r.body.entries;
    expect(e.map((x) => [x.kind, x.bytes])).toEqual([
      ['refund', String(-15n * GB)],
      ['crypto', String(15n * GB)],
      ['batch', String((15n * GB) / 10n)],
      ['crypto', String(12n * GB)],
      ['crypto', '0'],
      ['code', String((25n * GB) / 10n)],
    ]);
    const times = e.map((x) => Date.parse(x.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(e[0]!.reference).toBe(refunded);
    expect(e[1]).toMatchObject({ reference: refunded, description: 'Crypto payment: 15 GB for $13.50' });
    expect(e[1]!.history!.map((h) => h.status)).toEqual(['created', 'waiting', 'paid', 'refunded']);
    expect(e[2]).toMatchObject({ reference: batchId, description: `Batch ${batchId} associated` });
    expect(e[3]).toMatchObject({ id: paid, reference: paid });
    expect(e[3]!.history!.map((h) => h.status)).toEqual(['created', 'waiting', 'confirming', 'paid']);
    expect(e[4]).toMatchObject({ id: unpaid, reference: unpaid, history: [{ status: 'created' }, { status: 'waiting' }] });
    expect(e[5]).toMatchObject({ reference: code, description: `Top-up code ${code}` });
    // Entry bytes add up to the balance.
    const { body } = await client.get<{ user: { credits: number } }>('/auth/user');
    expect(e.reduce((s, x) => s + BigInt(x.bytes), 0n)).toBe(BigInt(body.user.credits));
  });

  it('pages with limit and cursor without gaps or repeats; bad paging input is a 400', async () => {
    const { client } = await signedInUser(server);
    for (let i = 0; i < 7; i++) await order(client, 12, 10.8);
    await redeemNewCode(client, 1);
    const all = (await client.get<Page>('/api/billing')).body.entries;
    expect(all).toHaveLength(8);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const q: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3';
      const p: { status: number; body: Page } = await client.get<Page>(`/api/billing${q}`);
      expect(p.status).toBe(200);
      expect(p.body.entries.length).toBeLessThanOrEqual(3);
      seen.push(...p.body.entries.map((x) => x.id));
      cursor = p.body.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(all.map((x) => x.id));

    for (const [q, message] of [
      ['limit=0', 'Limit must be at least 1'],
      ['limit=501', 'Limit must be at most 500'],
      ['limit=abc', 'Limit must be a number'],
      ['cursor=nonsense', 'The page cursor is not valid'],
      ['format=xml', 'Format must be json or csv'],
    ] as const) {
      const bad = await client.get<{ success: boolean; error: string }>(`/api/billing?${q}`);
      expect({ q, status: bad.status, body: bad.body }).toEqual({
        q,
        status: 400,
        body: { success: false, error: message, code: describeError(message)!.code },
      });
    }
  });

  it('answers CSV with a header row; the API key reads the same; other users and anonymous callers see nothing', async () => {
    const { client, user } = await signedInUser(server);
    const code = await redeemNewCode(client, 1);
    const csv = await client.get<string>('/api/billing?format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe('createdAt,kind,bytes,gb (GB = 1073741824 bytes),description,reference,id');
    expect(lines[1]).toContain(`,code,${GB},1.00,Top-up code ${code},${code},`);

    const bearer = server.client({ origin: null });
    bearer.bearer = user.apiKey;
    expect((await bearer.get<Page>('/api/billing')).body).toEqual((await client.get<Page>('/api/billing')).body);

    const other = await signedInUser(server);
    expect((await other.client.get<Page>('/api/billing')).body).toEqual({ entries: [], nextCursor: null });
    expect((await server.client().get('/api/billing')).status).toBe(401);
  });
});

describe('GET /billing/receipts/:paymentId', () => {
  it('is a printable page for a paid order of its owner only', async () => {
    const { client, user } = await signedInUser(server);
    const paid = await order(client, 12, 10.8);
    const unpaid = await order(client, 12, 10.8);
    await webhook(paid, 'finished', 10.8);

    const r = await client.get<string>(`/billing/receipts/${paid}`, { accept: 'text/html' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.body).toContain(`data-testid="receipt-amount">$10.80 USD<`);
    expect(r.body).toContain(`data-testid="receipt-gb">12.00 GB<`);
    expect(r.body).toContain(`data-testid="receipt-order">${paid}<`);
    expect(r.body).toMatch(/data-testid="receipt-date">\d{4}-\d\d-\d\d \d\d:\d\d UTC</);
    expect(r.body).not.toMatch(/<script/i);

    const bearer = server.client({ origin: null });
    bearer.bearer = user.apiKey;
    expect((await bearer.get(`/billing/receipts/${paid}`)).status).toBe(200);

    const other = await signedInUser(server);
    for (const [c, id] of [
      [other.client, paid],
      [client, unpaid],
      [client, 'not-an-id'],
    ] as const) {
      const no = await c.get<string>(`/billing/receipts/${id}`, { accept: 'text/html' });
      expect(no.status).toBe(404);
      expect(no.body).toContain('No receipt: this order does not exist or was not paid');
    }
    expect((await server.client().get(`/billing/receipts/${paid}`, { accept: 'text/html' })).status).toBe(401);
  });
});
