import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, payments } from '@proxyhub/db';
import { adminClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());

const json = { 'content-type': 'application/json' };
const put = (body: unknown) => admin.request('PUT', '/admin/pricing', JSON.stringify(body), json);

describe('prices the operator sets', () => {
  it('defaults to the spec: $0.90/GB, $10 minimum, 12 GB charged $10.80; below it the spec message', async () => {
    const r = await server.client().get('/api/pricing');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ pricePerGbCents: 90, minOrderCents: 1000, minOrderGb: 12, minOrderTotalCents: 1080, tiers: [] });
    const { client } = await signedInUser(server);
    expect(await client.post('/auth/create-crypto-payment', { gbAmount: 11, priceUsd: 9.9 })).toMatchObject({
      status: 400,
      body: { error: 'Minimum order is 12GB ($10)' },
    });
    expect((await client.post('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 })).status).toBe(200);
  });

  it('PUT /admin/pricing is validated, audited, and prices every order by its tier; the user rate wins when lower', async () => {
    const bad: Array<[unknown, string]> = [
      [{ pricePerGbCents: 0, minOrderCents: 1000, tiers: [] }, 'Price per GB must be at least 1 cent'],
      [{ pricePerGbCents: 90.5, minOrderCents: 1000, tiers: [] }, 'Price per GB must be a whole number of cents'],
      [{ pricePerGbCents: 90, minOrderCents: -1, tiers: [] }, 'Minimum order must be at least 1 cent'],
      [
        {
          pricePerGbCents: 90,
          minOrderCents: 1000,
          tiers: [
            { minGb: 100, pricePerGbCents: 80 },
            { minGb: 50, pricePerGbCents: 70 },
          ],
        },
        'Tiers must be in ascending GB',
      ],
      [{ pricePerGbCents: 90, minOrderCents: 1000, tiers: [{ minGb: 100, pricePerGbCents: 95 }] }, 'Each tier must be cheaper than the one before'],
      [
        {
          pricePerGbCents: 90,
          minOrderCents: 1000,
          tiers: [
            { minGb: 50, pricePerGbCents: 80 },
            { minGb: 100, pricePerGbCents: 85 },
          ],
        },
        'Each tier must be cheaper than the one before',
      ],
    ];
    for (const [body, error] of bad) expect(await put(body), JSON.stringify(body)).toMatchObject({ status: 400, body: { success: false, error } });
    const { client } = await signedInUser(server);
    expect((await client.request('PUT', '/admin/pricing', JSON.stringify({ pricePerGbCents: 1, minOrderCents: 1, tiers: [] }), json)).status).toBe(403);

    const set = await put({
      pricePerGbCents: 100,
      minOrderCents: 1500,
      tiers: [
        { minGb: 50, pricePerGbCents: 80 },
        { minGb: 200, pricePerGbCents: 60 },
      ],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await server.client().get('/api/pricing')).body).toEqual({
      pricePerGbCents: 100,
      minOrderCents: 1500,
      minOrderGb: 15,
      minOrderTotalCents: 1500,
      tiers: [
        { minGb: 50, pricePerGbCents: 80 },
        { minGb: 200, pricePerGbCents: 60 },
      ],
    });
    expect(await client.post('/auth/create-crypto-payment', { gbAmount: 14, priceUsd: 15 })).toMatchObject({
      status: 400,
      body: { error: 'Minimum order is 15GB ($15)' },
    });
    expect(await client.post('/auth/create-crypto-payment', { gbAmount: 50, priceUsd: 50 })).toMatchObject({
      status: 400,
      body: { error: 'Price mismatch: 50GB costs $40.00. Please refresh and try again.' },
    });
    expect((await client.post('/auth/create-crypto-payment', { gbAmount: 50, priceUsd: 40 })).status).toBe(200);
    expect((await client.post('/auth/create-crypto-payment', { gbAmount: 20, priceUsd: 20 })).status).toBe(200);
    expect((await client.post('/auth/create-crypto-payment', { gbAmount: 250, priceUsd: 150 })).status).toBe(200);

    // One user's own rate: used when lower than the tier's.
    const me = (await client.get<{ user: { id: string } }>('/auth/user')).body.user;
    const own = await admin.request('PATCH', `/admin/users/${me.id}`, JSON.stringify({ pricePerGbCents: 70 }), json);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect((await client.get('/api/pricing')).body).toMatchObject({ userPricePerGbCents: 70 });
    expect((await client.post('/auth/create-crypto-payment', { gbAmount: 50, priceUsd: 35 })).status).toBe(200);
    expect((await client.post('/auth/create-crypto-payment', { gbAmount: 200, priceUsd: 120 })).status).toBe(200);
    expect((await admin.request('PATCH', `/admin/users/${me.id}`, JSON.stringify({ pricePerGbCents: 'x' }), json)).status).toBe(400);
    expect((await admin.request('PATCH', '/admin/users/00000000-0000-4000-8000-000000000000', JSON.stringify({ pricePerGbCents: 50 }), json)).status).toBe(404);
    expect((await admin.request('PATCH', `/admin/users/${me.id}`, JSON.stringify({ pricePerGbCents: null }), json)).status).toBe(200);
    expect((await client.post('/auth/create-crypto-payment', { gbAmount: 50, priceUsd: 40 })).status).toBe(200);

    const orders = await server.deps.db.select({ gb: payments.gbAmount, cents: payments.priceCents }).from(payments).where(eq(payments.userId, me.id));
    expect(orders.map((o) => `${o.gb}:${o.cents}`).sort()).toEqual(['200:12000', '20:2000', '250:15000', '50:3500', '50:4000', '50:4000'].sort());
    const audit = await server.deps.db.select().from(auditLog);
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['admin.setPricing', 'admin.patchUser']));
    expect(audit.find((a) => a.action === 'admin.patchUser')?.target).toBe(`user:${me.id}`);

    expect((await put({ pricePerGbCents: 90, minOrderCents: 1000, tiers: [] })).status).toBe(200);
  });

  it('after a price change an order is charged the new price, and revenue and margin count what each order paid', async () => {
    type Overview = { days: { cryptoCents: number; codeCents: number }[]; listPricePerGbCents: number };
    const today = async () => {
      const r = await admin.get<Overview>('/admin/usage/history');
      expect(r.status).toBe(200);
      return { ...r.body.days.at(-1)!, listPricePerGbCents: r.body.listPricePerGbCents };
    };
    const pay = (client: HttpClient, invoiceUrl: string, body: string) =>
      client.request('POST', new URL(invoiceUrl).pathname, body, { 'content-type': 'application/x-www-form-urlencoded' });
    const before = await today();
    expect(before.listPricePerGbCents).toBe(90);

    expect((await put({ pricePerGbCents: 75, minOrderCents: 1000, tiers: [] })).status).toBe(200);
    const { client } = await signedInUser(server);
    // The old price is refused; the new one is what the order records.
    expect(await client.post('/auth/create-crypto-payment', { gbAmount: 20, priceUsd: 18 })).toMatchObject({
      status: 400,
      body: { error: 'Price mismatch: 20GB costs $15.00. Please refresh and try again.' },
    });
    const full = await client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 20, priceUsd: 15 });
    const part = await client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 20, priceUsd: 15 });
    expect((await pay(client, full.body.invoiceUrl, 'outcome=finished')).status).toBe(303);
    expect((await pay(client, part.body.invoiceUrl, 'outcome=partially_paid&paidUsd=6.00')).status).toBe(303);
    const me = (await client.get<{ user: { id: string } }>('/auth/user')).body.user;
    const rows = await server.deps.db.select({ cents: payments.priceCents, paid: payments.paidCents }).from(payments).where(eq(payments.userId, me.id));
    expect(rows.map((o) => o.cents)).toEqual([1500, 1500]);

    // A code redeemed now is worth the list price in force: 2 GB at $0.75.
    const code = (await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: 2, quantity: 1, expiresAt: null })).body.codes[0]!.code;
    expect((await client.post('/auth/redeem-code', { code })).status).toBe(200);

    const after = await today();
    expect(after.listPricePerGbCents).toBe(75);
    // The paid order at its price, the underpaid one at what was paid of it.
    expect(after.cryptoCents - before.cryptoCents).toBe(1500 + 600);
    expect([before.codeCents, after.codeCents]).toEqual([0, 150]);

    // The margin view sells a GB at what the paid orders brought in: $21.00 over 20 GB + 8 GB credited.
    const up = await admin.post<{ upstream: { id: string } }>('/admin/upstreams', {
      name: 'Pool M',
      protocol: 'http',
      host: 'pool-m.example.net',
      port: 8000,
      usernameTemplate: 'cust-{country}',
      password: 'x',
      costPerGbCents: 40,
    });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    const usage = await admin.get<{ soldPricePerGbCents: number }>(`/admin/upstreams/${up.body.upstream.id}/usage`);
    expect(usage.body.soldPricePerGbCents).toBe(Math.round(2100 / 28));

    expect((await put({ pricePerGbCents: 90, minOrderCents: 1000, tiers: [] })).status).toBe(200);
  });
});
