/**
 * Subscribing to a plan over HTTP: `POST /api/subscriptions` opens an invoice on the crypto top-up
 * path (the sandbox here), the paid invoice starts the subscription and its bucket exactly once
 * under repeated, forged and late deliveries, `GET /api/subscriptions` and `GET /auth/user` show it,
 * `DELETE /api/subscriptions/:id` stops renewal; bad input is a 4xx with a reason and writes nothing.
 */
import { eq, like } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_SIGNATURE_HEADER, signSandboxNotification } from '@proxyhub/api';
import { creditEntries, payments, subscriptions } from '@proxyhub/db';
import { adminClient, expectLedgerOk } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

const GB = 1073741824;

type Plan = { id: string; name: string; gbPerPeriod: number; priceCents: number; period: string; rollover: boolean; active: boolean };
type Subscription = {
  id: string;
  plan: Plan;
  status: string;
  periodStart: string;
  periodEnd: string;
  allowanceBytes: number;
  usedBytes: number;
  carriedBytes: number;
  renewsAt: string | null;
  renewalInvoiceUrl: string | null;
};

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const createPlan = async (body: Partial<Plan> = {}) => {
  const r = await admin.post<{ plan: Plan }>('/admin/plans', {
    name: `Plan ${Math.random().toString(36).slice(2, 7)}`,
    gbPerPeriod: 5,
    priceCents: 1500,
    period: 'month',
    ...body,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.plan;
};
const form = (client: HttpClient, invoiceUrl: string, outcome: string) =>
  client.request('POST', new URL(invoiceUrl).pathname, `outcome=${outcome}`, { 'content-type': 'application/x-www-form-urlencoded' });
const listOf = async (client: HttpClient) => (await client.get<{ subscriptions: Subscription[] }>('/api/subscriptions')).body.subscriptions;
const me = async (client: HttpClient) =>
  (await client.get<{ user: { credits: number; planBytes: number; planEndsAt: string | null } }>('/auth/user')).body.user;

describe('subscriptions', () => {
  it('subscribe, pay in the sandbox, and the period starts once with its bucket', async () => {
    const plan = await createPlan({ gbPerPeriod: 5, priceCents: 1500 });
    const { client } = await signedInUser(server);
    const r = await client.post<{ success: boolean; invoiceUrl: string }>('/api/subscriptions', { planId: plan.id });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, invoiceUrl: expect.stringMatching(/\/sandbox\/pay\/[0-9a-f-]{36}$/) });
    expect(await listOf(client)).toEqual([]);

    const paid = await form(client, r.body.invoiceUrl, 'finished');
    expect(paid.status).toBe(303);
    // Repeated and late deliveries change nothing.
    await form(client, r.body.invoiceUrl, 'finished');
    await form(client, r.body.invoiceUrl, 'failed');

    const [sub] = await listOf(client);
    expect(sub).toEqual({
      id: expect.any(String),
      plan,
      status: 'active',
      periodStart: expect.any(String),
      periodEnd: expect.any(String),
      allowanceBytes: 5 * GB,
      usedBytes: 0,
      carriedBytes: 0,
      renewsAt: sub!.periodEnd,
      renewalInvoiceUrl: null,
    });
    const start = new Date(sub!.periodStart);
    const end = new Date(sub!.periodEnd);
    expect(end.getUTCMonth()).toBe((start.getUTCMonth() + 1) % 12);
    expect(await me(client)).toMatchObject({ credits: 5 * GB, planBytes: 5 * GB, planEndsAt: sub!.periodEnd });
    // The plan's allowance, not pay-as-you-go GB: one grant, no payment entry.
    const [order] = await server.deps.db.select().from(payments).where(eq(payments.invoiceUrl, r.body.invoiceUrl));
    expect(order).toMatchObject({ planId: plan.id, status: 'finished', gbAmount: 5, priceCents: 1500 });
    expect(
      await server.deps.db
        .select()
        .from(creditEntries)
        .where(eq(creditEntries.sourceKey, `payment:${order!.id}`)),
    ).toEqual([]);
    const grants = await server.deps.db
      .select({ key: creditEntries.sourceKey, bytes: creditEntries.amountBytes })
      .from(creditEntries)
      .where(like(creditEntries.sourceKey, `plan-grant:${sub!.id}:%`));
    expect(grants).toEqual([{ key: `plan-grant:${sub!.id}:1`, bytes: BigInt(5 * GB) }]);

    // A second subscription to the same plan is refused, with no order or subscription written; the plan cannot be deleted while used.
    const rowsOf = async () => ({
      orders: (await server.deps.db.select().from(payments).where(eq(payments.planId, plan.id))).length,
      subscriptions: (await server.deps.db.select().from(subscriptions).where(eq(subscriptions.planId, plan.id))).length,
    });
    const before = await rowsOf();
    expect(await client.post('/api/subscriptions', { planId: plan.id })).toMatchObject({
      status: 409,
      body: { success: false, error: 'You already have an active subscription to this plan' },
    });
    expect(await rowsOf()).toEqual(before);
    expect(await admin.request('DELETE', `/admin/plans/${plan.id}`)).toMatchObject({
      status: 409,
      body: { error: 'This plan has subscriptions: deactivate it instead' },
    });

    // Stopping renewal: the period runs to its end, no renewal date.
    const stopped = await client.request<{ success: boolean; subscription: Subscription }>('DELETE', `/api/subscriptions/${sub!.id}`);
    expect(stopped).toMatchObject({
      status: 200,
      body: { success: true, subscription: { id: sub!.id, status: 'cancelled', renewsAt: null, periodEnd: sub!.periodEnd } },
    });
    expect(await me(client)).toMatchObject({ planBytes: 5 * GB });
  });

  it('a forged delivery for a plan order starts nothing', async () => {
    const plan = await createPlan();
    const { client } = await signedInUser(server);
    const r = await client.post<{ invoiceUrl: string }>('/api/subscriptions', { planId: plan.id });
    const body = {
      order_id: r.body.invoiceUrl.split('/').at(-1)!,
      payment_id: 'x',
      payment_status: 'finished' as const,
      price_amount: 15,
      price_currency: 'usd' as const,
    };
    const anon = server.client({ origin: null });
    expect((await anon.post('/webhooks/sandbox', body, { [SANDBOX_SIGNATURE_HEADER]: 'ab'.repeat(64) })).status).toBe(401);
    const cheap = { ...body, price_amount: 1 };
    expect((await anon.post('/webhooks/sandbox', cheap, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(server.config.appSecret, cheap) })).status).toBe(
      400,
    );
    expect(await listOf(client)).toEqual([]);
    const ok = await anon.post('/webhooks/sandbox', body, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(server.config.appSecret, body) });
    expect(ok).toMatchObject({ status: 200, body: { credited: true } });
    expect((await listOf(client)).map((s) => s.status)).toEqual(['active']);
  });

  it('refuses bad input with a reason and writes nothing', async () => {
    const { client, user } = await signedInUser(server);
    const inactive = await createPlan();
    await admin.request('PATCH', `/admin/plans/${inactive.id}`, { active: false });
    for (const [body, status, error] of [
      [{}, 400, 'Choose a plan'],
      [{ planId: '' }, 400, 'Choose a plan'],
      [{ planId: 42 }, 400, 'Choose a plan'],
      [{ planId: 'not-a-plan' }, 404, 'Plan not found'],
      [{ planId: '00000000-0000-4000-8000-000000000000' }, 404, 'Plan not found'],
      [{ planId: inactive.id }, 409, 'This plan is no longer offered: choose another plan'],
    ] as const) {
      const r = await client.post('/api/subscriptions', body);
      expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status, error });
    }
    expect(await server.deps.db.select().from(payments).where(eq(payments.userId, user.id))).toEqual([]);
    expect((await client.request('DELETE', '/api/subscriptions/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await client.request('DELETE', '/api/subscriptions/nope')).status).toBe(404);
    expect((await server.client().post('/api/subscriptions', { planId: inactive.id })).status).toBe(401);
    expect((await server.client().get('/api/subscriptions')).status).toBe(401);
  });

  it("the admin's views: subscribers and this month's revenue per plan, a user's subscriptions and buckets, plan revenue in the overview", async () => {
    type Overview = {
      days: Array<{ cryptoCents: number; codeCents: number; planCents: number; revenueCents: number }>;
      totals: { revenueCents: number; topUpCents: number; planCents: number };
    };
    const overview = async () => {
      const r = await admin.get<Overview>('/admin/usage/history');
      expect(r.status).toBe(200);
      return { today: r.body.days.at(-1)!, totals: r.body.totals };
    };
    const before = await overview();
    const plan = await createPlan({ gbPerPeriod: 3, priceCents: 1200 });
    const subscribe = async () => {
      const u = await signedInUser(server);
      const r = await u.client.post<{ invoiceUrl: string }>('/api/subscriptions', { planId: plan.id });
      expect(r.status).toBe(200);
      return { ...u, invoiceUrl: r.body.invoiceUrl };
    };
    // Two paid (one of them then cancelled: not a subscriber any more, its payment still revenue), one unpaid.
    const a = await subscribe();
    const b = await subscribe();
    await subscribe();
    for (const u of [a, b]) expect((await form(u.client, u.invoiceUrl, 'finished')).status).toBe(303);
    const [bSub] = await listOf(b.client);
    expect((await b.client.request('DELETE', `/api/subscriptions/${bSub!.id}`)).status).toBe(200);
    // A top-up the same day counts as a top-up, not as plan revenue.
    const topUp = await a.client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
    expect((await form(a.client, topUp.body.invoiceUrl, 'finished')).status).toBe(303);

    const plans = await admin.get<{ plans: Array<{ id: string; subscribers: number; revenueCentsThisMonth: number }> }>('/admin/plans');
    expect(plans.body.plans.find((p) => p.id === plan.id)).toMatchObject({ subscribers: 1, revenueCentsThisMonth: 2400 });

    const after = await overview();
    expect(after.today.planCents - before.today.planCents).toBe(2400);
    expect(after.today.cryptoCents - before.today.cryptoCents).toBe(1080);
    expect(after.today.revenueCents).toBe(after.today.cryptoCents + after.today.codeCents + after.today.planCents);
    expect({ plans: after.totals.planCents - before.totals.planCents, topUps: after.totals.topUpCents - before.totals.topUpCents }).toEqual({
      plans: 2400,
      topUps: 1080,
    });
    expect(after.totals.revenueCents).toBe(after.totals.planCents + after.totals.topUpCents);

    const [aSub] = await listOf(a.client);
    const detail = await admin.get<{ success: boolean; subscriptions: unknown[]; planBuckets: unknown[] }>(`/admin/users/${a.user.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.subscriptions).toEqual([
      {
        id: aSub!.id,
        planId: plan.id,
        planName: plan.name,
        status: 'active',
        periodStart: aSub!.periodStart,
        periodEnd: aSub!.periodEnd,
        allowanceBytes: String(3 * GB),
        usedBytes: '0',
        carriedBytes: '0',
        renewsAt: aSub!.periodEnd,
      },
    ]);
    expect(detail.body.planBuckets).toEqual([
      {
        id: expect.any(String),
        subscriptionId: aSub!.id,
        planName: plan.name,
        period: 1,
        grantedBytes: String(3 * GB),
        carriedBytes: '0',
        usedBytes: '0',
        remainingBytes: String(3 * GB),
        startsAt: aSub!.periodStart,
        endsAt: aSub!.periodEnd,
        closedAt: null,
      },
    ]);
    const none = await admin.get<{ subscriptions: unknown[]; planBuckets: unknown[] }>(`/admin/users/${(await signedInUser(server)).user.id}`);
    expect({ subscriptions: none.body.subscriptions, planBuckets: none.body.planBuckets }).toEqual({ subscriptions: [], planBuckets: [] });
  });

  it("one user cannot stop another's subscription", async () => {
    const plan = await createPlan();
    const a = await signedInUser(server);
    const r = await a.client.post<{ invoiceUrl: string }>('/api/subscriptions', { planId: plan.id });
    await form(a.client, r.body.invoiceUrl, 'finished');
    const [sub] = await listOf(a.client);
    const b = await signedInUser(server);
    expect((await b.client.request('DELETE', `/api/subscriptions/${sub!.id}`)).status).toBe(404);
    const [row] = await server.deps.db.select().from(subscriptions).where(eq(subscriptions.id, sub!.id));
    expect(row!.status).toBe('active');
  });
});
