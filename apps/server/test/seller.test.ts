/**
 * The seller is named: an owner sets the company, postal address, support email and the legal
 * pages' dates (PUT /admin/seller, audit-logged; bad input a 400 saying why, nothing saved; other
 * roles and users refused). Until then the shipped placeholders stand and GET /admin/seller lists
 * them. The legal pages, mails and receipts show the settings; receipts carry a number gapless per
 * UTC year, given when the order is credited, and the buyer's name and email.
 */
import { eq, isNotNull } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_SIGNATURE_HEADER, signSandboxNotification } from '@proxyhub/api';
import { SELLER_PLACEHOLDERS } from '@proxyhub/core';
import { payments, sellerSettings } from '@proxyhub/db';
import { adminClient, expectLedgerOk } from './credits-helpers';
import { signedInUser, startTestServer, STRONG_PASSWORD, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let owner: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  owner = await adminClient(server);
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const SELLER = {
  companyName: 'Northwind Proxies <Ltd>',
  address: '  12 Harbour Road\r\n\r\nBristol BS1 4QA \n United Kingdom ',
  supportEmail: 'Help@Northwind.example',
  legalUpdatedOn: '2026-01-15',
  legalEffectiveOn: '2026-02-01',
};
const SAVED = {
  companyName: 'Northwind Proxies <Ltd>',
  address: '12 Harbour Road\nBristol BS1 4QA\nUnited Kingdom',
  supportEmail: 'help@northwind.example',
  legalUpdatedOn: '2026-01-15',
  legalEffectiveOn: '2026-02-01',
};
const ALL_PLACEHOLDERS = ['company name', 'postal address', 'support email', 'last updated date', 'effective date'];

async function order(client: HttpClient, gbAmount = 12, priceUsd = 10.8): Promise<string> {
  const r = await client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount, priceUsd });
  expect(r.status).toBe(200);
  return r.body.invoiceUrl.split('/').at(-1)!;
}

async function pay(paymentId: string, priceAmount = 10.8) {
  const body = {
    order_id: paymentId,
    payment_id: `sbx-${paymentId.slice(0, 8)}`,
    payment_status: 'finished',
    price_amount: priceAmount,
    price_currency: 'usd',
  };
  const r = await server
    .client({ origin: null })
    .post('/webhooks/sandbox', body, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(server.config.appSecret, body as never) });
  expect(r.status).toBe(200);
}

async function receiptNumbers(): Promise<string[]> {
  const rows = await server.database.db.select({ n: payments.receiptNumber }).from(payments).where(isNotNull(payments.receiptNumber));
  return rows.map((r) => r.n!).sort();
}

describe('before an owner sets the seller', () => {
  it('answers the shipped placeholders, and lists every one of them for the overview', async () => {
    expect(await server.client({ origin: null }).get('/api/seller')).toMatchObject({ status: 200, body: SELLER_PLACEHOLDERS });
    expect(await owner.get('/admin/seller')).toMatchObject({ status: 200, body: { seller: SELLER_PLACEHOLDERS, placeholders: ALL_PLACEHOLDERS } });
    const terms = await server.client().get<{ html: string }>('/api/pages/terms');
    expect(terms.body.html).toContain(`Last updated: ${SELLER_PLACEHOLDERS.legalUpdatedOn}`);
    expect(terms.body.html).not.toContain('{{');
  });
});

describe('PUT /admin/seller', () => {
  it('refuses bad input with the reason and saves nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...SELLER, companyName: '  ' }, 'Company name is required'],
      [{ ...SELLER, companyName: 'x'.repeat(201) }, 'Company name must be at most 200 characters'],
      [{ ...SELLER, companyName: 42 }, 'Company name must be text'],
      [{ ...SELLER, address: '' }, 'Postal address is required'],
      [{ ...SELLER, supportEmail: 'not-an-email' }, 'Support email must be an email address'],
      [{ ...SELLER, supportEmail: undefined }, 'Support email is required'],
      [{ ...SELLER, legalUpdatedOn: '15/01/2026' }, 'Last updated must be a date (YYYY-MM-DD)'],
      [{ ...SELLER, legalUpdatedOn: '2026-02-30' }, 'Last updated must be a date (YYYY-MM-DD)'],
      [{ ...SELLER, legalEffectiveOn: '' }, 'Effective date must be a date (YYYY-MM-DD)'],
    ];
    for (const [body, error] of cases) {
      expect(await owner.request('PUT', '/admin/seller', body), error).toMatchObject({ status: 400, body: { success: false, error } });
    }
    expect(await server.database.db.select().from(sellerSettings)).toEqual([]);
  });

  it('is for owners: finance reads it but may not change it, users and strangers are refused', async () => {
    const username = `finance-${Date.now().toString(36)}`;
    expect((await owner.post('/admin/admins', { username, password: 'Role-Password-1', role: 'finance' })).status).toBe(201);
    const finance = server.client();
    expect((await finance.post('/auth/admin/login', { username, password: 'Role-Password-1' })).status).toBe(200);
    expect((await finance.get('/admin/seller')).status).toBe(200);
    expect(await finance.request('PUT', '/admin/seller', SELLER)).toMatchObject({ status: 403, body: { success: false, error: 'Not allowed for your role' } });
    const { client } = await signedInUser(server);
    expect((await client.request('PUT', '/admin/seller', SELLER)).status).toBe(403);
    expect((await server.client().request('PUT', '/admin/seller', SELLER)).status).toBe(401);
    expect(await server.database.db.select().from(sellerSettings)).toEqual([]);
  });

  it('saves the seller (address lines tidied, email lower-cased), audit-logged; the site, pages and mails name it', async () => {
    expect(await owner.request('PUT', '/admin/seller', SELLER)).toMatchObject({ status: 200, body: { success: true, seller: SAVED, placeholders: [] } });
    expect(await owner.get('/admin/seller')).toMatchObject({ status: 200, body: { seller: SAVED, placeholders: [] } });
    expect((await server.client({ origin: null }).get('/api/seller')).body).toEqual(SAVED);

    const log = await owner.get<{ entries: Array<{ action: string; actor: string; changes: unknown }> }>('/admin/audit-log?action=admin.setSeller');
    expect(log.body.entries[0]).toMatchObject({ action: 'admin.setSeller', actor: expect.stringMatching(/^admin:/), changes: { input: SELLER } });

    const terms = await server.client().get<{ html: string }>('/api/pages/terms');
    expect(terms.body.html).toContain('Last updated: 2026-01-15. Effective: 2026-02-01.');
    expect(terms.body.html).toContain('Northwind Proxies &#60;Ltd&#62;');
    expect(terms.body.html).toContain('12 Harbour Road<br>\nBristol BS1 4QA<br>\nUnited Kingdom');
    expect(terms.body.html).toContain('<a href="mailto:help@northwind.example">help@northwind.example</a>');
    for (const slug of ['privacy', 'acceptable-use', 'refunds']) {
      const page = await server.client().get<{ html: string }>(`/api/pages/${slug}`);
      expect(page.body.html, slug).toContain('mailto:help@northwind.example');
      expect(page.body.html, slug).not.toContain('{{');
    }

    // Mail: the seller in the footer of both parts, "contact support" naming the address.
    const { client, email } = await signedInUser(server, 'Mia Mail');
    expect(server.mails(email).at(-1)!.text).toContain(
      'Northwind Proxies <Ltd> · 12 Harbour Road, Bristol BS1 4QA, United Kingdom\nSupport: help@northwind.example',
    );
    expect((await client.post('/auth/change-password', { currentPassword: STRONG_PASSWORD, newPassword: 'Another-Secret-2' })).status).toBe(200);
    await server.settle();
    const changed = server.mails(email).at(-1)!;
    expect(changed.subject).toBe('Your password was changed');
    expect(changed.text).toContain('contact support at help@northwind.example');
    expect(changed.html).toContain('contact support at <a href="mailto:help@northwind.example"');
    expect(changed.html).toContain('Northwind Proxies &#60;Ltd&#62; · 12 Harbour Road, Bristol BS1 4QA, United Kingdom · Support:');
  });
});

describe('receipts', () => {
  it('carry their number, the seller, and the buyer by name and email', async () => {
    const { client, email } = await signedInUser(server, 'Bea Buyer');
    const paid = await order(client);
    await pay(paid);
    const [row] = await server.database.db.select().from(payments).where(eq(payments.id, paid));
    const year = row!.creditedAt!.getUTCFullYear();
    expect(row!.receiptNumber).toMatch(new RegExp(`^${year}-\\d{6}$`));
    // A repeated delivery keeps the number.
    await pay(paid);
    const [again] = await server.database.db.select().from(payments).where(eq(payments.id, paid));
    expect(again!.receiptNumber).toBe(row!.receiptNumber);

    const r = await client.get<string>(`/billing/receipts/${paid}`, { accept: 'text/html' });
    expect(r.status).toBe(200);
    expect(r.body).toContain(`data-testid="receipt-number">${row!.receiptNumber}<`);
    expect(r.body).toMatch(
      /data-testid="receipt-seller">.*Northwind Proxies &#60;Ltd&#62;.*12 Harbour Road<br>Bristol BS1 4QA<br>United Kingdom.*help@northwind\.example/s,
    );
    expect(r.body).toMatch(new RegExp(`data-testid="receipt-buyer">.*Bea Buyer.*${email.replace(/[.]/g, '\\.')}`, 's'));
  });

  it('are numbered without gaps or repeats when many orders are credited at once', async () => {
    const before = await receiptNumbers();
    const buyers = await Promise.all(Array.from({ length: 4 }, (_, i) => signedInUser(server, `Concurrent ${i}`)));
    const orders: string[] = [];
    for (const b of buyers) for (let i = 0; i < 3; i++) orders.push(await order(b.client));
    await Promise.all(orders.map((id) => pay(id)));

    const after = await receiptNumbers();
    expect(after).toHaveLength(before.length + orders.length);
    const year = new Date().getUTCFullYear();
    // Every credited order of this year, numbered 1..n (the test server is fresh).
    const thisYear = after.filter((n) => n.startsWith(`${year}-`));
    expect(thisYear).toEqual(thisYear.map((_, i) => `${year}-${String(i + 1).padStart(6, '0')}`));
  });
});
