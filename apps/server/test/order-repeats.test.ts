/**
 * No doubles, no dead ends for crypto orders: an idempotency key makes a repeated Pay (a double
 * click, a retried request, ten at once) answer the same order for 10 minutes; a waiting order can
 * be resumed from Billing (its invoice link) or cancelled, and a payment that arrives after the
 * cancel still credits.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payments } from '@proxyhub/db';
import { expectLedgerOk } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

const GB = 1073741824;
type Created = { success: boolean; invoiceUrl: string; message: string; error?: string };
type Entry = { id: string; kind: string; history?: { status: string }[]; invoiceUrl?: string | null; cancellable?: boolean };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const order = (client: HttpClient, idempotencyKey?: string) =>
  client.post<Created>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8, ...(idempotencyKey ? { idempotencyKey } : {}) });
const ordersOf = (userId: string) => server.deps.db.select().from(payments).where(eq(payments.userId, userId));
const billing = async (client: HttpClient) => (await client.get<{ entries: Entry[] }>('/api/billing')).body.entries;

describe('crypto order idempotency key', () => {
  it('a repeat with the same key answers the same order, also ten at once; another key or none is a new order', async () => {
    const { client, user } = await signedInUser(server);
    const first = await order(client, 'key-1');
    expect(first.status).toBe(200);
    const again = await order(client, 'key-1');
    expect(again).toMatchObject({ status: 200, body: { success: true, invoiceUrl: first.body.invoiceUrl } });

    const burst = await Promise.all(Array.from({ length: 10 }, () => order(client, 'key-2')));
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(burst.map((r) => r.body.invoiceUrl)).size).toBe(1);
    expect(burst[0]!.body.invoiceUrl).not.toBe(first.body.invoiceUrl);

    // Without a key every request is an order, as before.
    await order(client);
    await order(client);
    expect(await ordersOf(user.id)).toHaveLength(4);

    // Keys are per user: another user's same key is their own order.
    const other = await signedInUser(server);
    const theirs = await order(other.client, 'key-1');
    expect(theirs.status).toBe(200);
    expect(theirs.body.invoiceUrl).not.toBe(first.body.invoiceUrl);
  });

  it('after 10 minutes the same key makes a new order', async () => {
    const { client, user } = await signedInUser(server);
    const first = await order(client, 'later');
    // No API moves time: the order is aged in its row.
    await server.deps.db
      .update(payments)
      .set({ createdAt: sql`now() - interval '10 minutes 1 second'` })
      .where(eq(payments.userId, user.id));
    const second = await order(client, 'later');
    expect(second.status).toBe(200);
    expect(second.body.invoiceUrl).not.toBe(first.body.invoiceUrl);
    const rows = await ordersOf(user.id);
    expect(rows.map((r) => r.idempotencyKey).sort()).toEqual(['later', null].sort());
  });

  it('refuses a bad key with 400 naming it and writes nothing', async () => {
    const { client, user } = await signedInUser(server);
    for (const [key, error] of [
      ['', 'Idempotency key must not be empty'],
      ['   ', 'Idempotency key must not be empty'],
      ['x'.repeat(101), 'Idempotency key is at most 100 characters'],
      [42, 'Idempotency key must be text'],
    ] as const) {
      const r = await client.post<{ error: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8, idempotencyKey: key });
      expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error });
    }
    expect(await ordersOf(user.id)).toHaveLength(0);
  });
});

describe('Billing: resume or cancel a waiting order', () => {
  it('a waiting order links to its invoice and can be cancelled once; a later payment still credits', async () => {
    const { client, user } = await signedInUser(server);
    const created = await order(client, 'resume');
    const paymentId = created.body.invoiceUrl.split('/').at(-1)!;
    const [waiting] = await billing(client);
    expect(waiting).toMatchObject({ id: paymentId, kind: 'crypto', invoiceUrl: created.body.invoiceUrl, cancellable: true });

    const cancelled = await client.post('/auth/cancel-crypto-payment', { paymentId });
    expect(cancelled).toMatchObject({ status: 200, body: { success: true, paymentId, status: 'cancelled' } });
    const [after] = await billing(client);
    expect(after).toMatchObject({ invoiceUrl: null, cancellable: false });
    expect(after!.history!.map((h) => h.status)).toEqual(['created', 'waiting', 'cancelled']);
    expect((await ordersOf(user.id))[0]).toMatchObject({ status: 'cancelled' });

    // The same key within the window still answers that order: a repeat never makes a second one.
    expect((await order(client, 'resume')).body.invoiceUrl).toBe(created.body.invoiceUrl);

    const twice = await client.post<{ error: string }>('/auth/cancel-crypto-payment', { paymentId });
    expect(twice).toMatchObject({ status: 409, body: { error: 'Only an order waiting for payment can be cancelled' } });

    // Someone paid the invoice anyway (the page was open): the payment is theirs and is credited.
    const path = new URL(created.body.invoiceUrl).pathname;
    const paid = await client.request('POST', path, 'outcome=finished', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(paid.status).toBe(303);
    expect((await client.get<{ user: { credits: number } }>('/auth/user')).body.user.credits).toBe(12 * GB);
    expect((await billing(client))[0]!.history!.at(-1)!.status).toBe('paid');
  });

  it('cancelling another user’s order, an unknown one or bad input is refused and changes nothing', async () => {
    const a = await signedInUser(server);
    const b = await signedInUser(server);
    const paymentId = (await order(a.client)).body.invoiceUrl.split('/').at(-1)!;
    for (const [client, body, status, error] of [
      [b.client, { paymentId }, 404, 'Order not found'],
      [a.client, { paymentId: '00000000-0000-4000-8000-000000000000' }, 404, 'Order not found'],
      [a.client, { paymentId: 'nope' }, 404, 'Order not found'],
      [a.client, {}, 400, 'Order not found'],
    ] as const) {
      const r = await client.post<{ error: string }>('/auth/cancel-crypto-payment', body);
      expect({ status: r.status, error: r.body.error }).toEqual({ status, error });
    }
    expect((await ordersOf(a.user.id))[0]).toMatchObject({ status: 'waiting' });
    expect((await server.client().post('/auth/cancel-crypto-payment', { paymentId })).status).toBe(401);
  });
});
