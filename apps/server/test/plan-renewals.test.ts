/**
 * The plan clock over three monthly periods, run by two servers at once at each step of a moved
 * clock: exact grants and expiries, each renewal notice once (mail with the invoice link, the
 * `plan.renewing` webhook event), a renewal paid early starting the next period at the old end,
 * and an unpaid one lapsing with pay-as-you-go credit untouched.
 */
import { eq, like } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { planPeriodsTick, type ApiDeps } from '@proxyhub/api';
import { creditEntries, subscriptions, webhookDeliveries } from '@proxyhub/db';
import { adminClient, expectLedgerOk } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

const GB = 1073741824;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const pay = (client: HttpClient, invoiceUrl: string) =>
  client.request('POST', new URL(invoiceUrl).pathname, 'outcome=finished', { 'content-type': 'application/x-www-form-urlencoded' });

describe('the plan clock', () => {
  it('two servers over three periods: exact grants and expiries, one notice each, lapse without touching pay-as-you-go', async () => {
    let clock = new Date('2030-01-10T00:00:00Z');
    server.deps.now = () => clock;
    // A second server process: its own deps object over the same database and mail outbox.
    const other: ApiDeps = { ...server.deps };
    const tick = async (at: Date) => {
      clock = at;
      const [a, b] = await Promise.all([planPeriodsTick(server.deps, at), planPeriodsTick(other, at)]);
      return { ended: a.periodsEnded + b.periodsEnded, notices: [...a.notices, ...b.notices].map((n) => n.daysBefore) };
    };

    const admin = await adminClient(server);
    const plan = (await admin.post<{ plan: { id: string } }>('/admin/plans', { name: 'Monthly 2', gbPerPeriod: 2, priceCents: 1500, period: 'month' })).body
      .plan;
    const { client, email } = await signedInUser(server);
    expect((await client.post('/api/webhooks', { url: 'http://127.0.0.1:1/hook', events: ['plan.renewing'] })).status).toBe(201);
    // Pay-as-you-go bought before: it must come out of all this untouched.
    const topUp = await client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
    await pay(client, topUp.body.invoiceUrl);
    const sub = await client.post<{ invoiceUrl: string }>('/api/subscriptions', { planId: plan.id });
    await pay(client, sub.body.invoiceUrl);
    const [row] = await server.deps.db.select().from(subscriptions);
    expect(row).toMatchObject({ periodStart: clock, periodEnd: new Date('2030-02-10T00:00:00Z'), period: 1 });
    const mails = () => server.mails(email).filter((m) => m.subject.startsWith('Your Monthly 2 plan renews'));
    const linkIn = (text: string) => /https?:\/\/\S+\/sandbox\/pay\/[0-9a-f-]{36}/.exec(text)![0];

    // Period 1: the seven-day notice once; paid early; the next period starts at the old end.
    expect(await tick(new Date('2030-01-20T00:00:00Z'))).toEqual({ ended: 0, notices: [] });
    expect(await tick(new Date('2030-02-03T01:00:00Z'))).toEqual({ ended: 0, notices: [7] });
    expect(await tick(new Date('2030-02-04T00:00:00Z'))).toEqual({ ended: 0, notices: [] });
    await server.settle();
    expect(mails()).toHaveLength(1);
    // The notice's invoice is the subscription's to pay (the dashboard's Pay button) until it is paid.
    const renewal = async () => (await client.get<{ subscriptions: Array<{ renewalInvoiceUrl: string | null }> }>('/api/subscriptions')).body.subscriptions[0]!;
    expect((await renewal()).renewalInvoiceUrl).toBe(linkIn(mails()[0]!.text));
    clock = new Date('2030-02-05T00:00:00Z');
    expect((await pay(client, linkIn(mails()[0]!.text))).status).toBe(303);
    expect((await renewal()).renewalInvoiceUrl).toBeNull();
    expect(await tick(new Date('2030-02-09T12:00:00Z'))).toEqual({ ended: 0, notices: [] }); // paid: no one-day notice
    expect(await tick(new Date('2030-02-10T00:01:00Z'))).toEqual({ ended: 1, notices: [] });
    const [p2] = await server.deps.db.select().from(subscriptions);
    expect(p2).toMatchObject({ status: 'active', period: 2, periodStart: new Date('2030-02-10T00:00:00Z'), periodEnd: new Date('2030-03-10T00:00:00Z') });

    // Period 2: both notices, with the same invoice; paid on the last day.
    expect(await tick(new Date('2030-03-03T01:00:00Z'))).toEqual({ ended: 0, notices: [7] });
    expect(await tick(new Date('2030-03-09T01:00:00Z'))).toEqual({ ended: 0, notices: [1] });
    await server.settle();
    expect(mails()).toHaveLength(3);
    expect(linkIn(mails()[2]!.text)).toBe(linkIn(mails()[1]!.text));
    clock = new Date('2030-03-09T02:00:00Z');
    await pay(client, linkIn(mails()[2]!.text));
    expect(await tick(new Date('2030-03-10T00:00:00Z'))).toEqual({ ended: 1, notices: [] });

    // Period 3: the clock jumps into the last day: the one-day notice only; unpaid, it lapses.
    expect(await tick(new Date('2030-04-09T06:00:00Z'))).toEqual({ ended: 0, notices: [1] });
    expect(await tick(new Date('2030-04-10T00:00:30Z'))).toEqual({ ended: 1, notices: [] });
    expect(await tick(new Date('2030-05-20T00:00:00Z'))).toEqual({ ended: 0, notices: [] });
    await server.settle();
    expect(mails()).toHaveLength(4);

    const [last] = await server.deps.db.select().from(subscriptions);
    expect(last).toMatchObject({ status: 'lapsed', period: 3, periodEnd: new Date('2030-04-10T00:00:00Z') });
    const ledger = await server.deps.db
      .select({ key: creditEntries.sourceKey, bytes: creditEntries.amountBytes })
      .from(creditEntries)
      .where(like(creditEntries.sourceKey, `plan-%:${row!.id}:%`))
      .orderBy(creditEntries.sourceKey);
    expect(ledger).toEqual([
      { key: `plan-expire:${row!.id}:1`, bytes: BigInt(-2 * GB) },
      { key: `plan-expire:${row!.id}:2`, bytes: BigInt(-2 * GB) },
      { key: `plan-expire:${row!.id}:3`, bytes: BigInt(-2 * GB) },
      { key: `plan-grant:${row!.id}:1`, bytes: BigInt(2 * GB) },
      { key: `plan-grant:${row!.id}:2`, bytes: BigInt(2 * GB) },
      { key: `plan-grant:${row!.id}:3`, bytes: BigInt(2 * GB) },
    ]);
    const user = (await client.get<{ user: { credits: number; planBytes: number } }>('/auth/user')).body.user;
    expect(user).toMatchObject({ credits: 12 * GB, planBytes: 0 });
    const events = await server.deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventType, 'plan.renewing'));
    expect(events).toHaveLength(4);
    const [lapsed] = (await client.get<{ subscriptions: Array<{ status: string; renewsAt: string | null }> }>('/api/subscriptions')).body.subscriptions;
    expect(lapsed).toMatchObject({ status: 'lapsed', renewsAt: null });
    expect(await client.request('DELETE', `/api/subscriptions/${row!.id}`)).toMatchObject({
      status: 409,
      body: { error: 'This subscription has already ended' },
    });
  });
});
