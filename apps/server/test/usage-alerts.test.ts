/**
 * Usage alerts: `usageAlertPercents` on GET/PUT /api/alerts; `usage.threshold` (mail, Telegram,
 * webhook event) once per crossing of a proxy account's cap under concurrent gateway reports, a
 * raised cap re-arming; a daily limit re-armed by the next UTC day; and `proxy_account.expiring`
 * three days before expiresAt, once whichever servers look, re-armed by a new expiresAt.
 */
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expiringAccountsTick, EXPIRING_PERIOD_MS, notifyExpiringAccounts, planPeriodsTick } from '@proxyhub/api';
import { BYTES_PER_GB } from '@proxyhub/core';
import { proxyAccounts, subscriptions, telegramOutbox, usageAlertMarks, webhookDeliveries } from '@proxyhub/db';
import { adminClient, expectLedgerOk, internalClient } from './credits-helpers';
import { BOT_TOKEN, FakeTelegram, signedInUser, startTestServer, textUpdate, WEBHOOK_SECRET, type HttpClient, type TestServer } from './helpers';

let fake: FakeTelegram;
let server: TestServer;
let admin: HttpClient;
let nextChat = 5000;

beforeAll(async () => {
  fake = await new FakeTelegram().start();
  server = await startTestServer({ telegram: { token: BOT_TOKEN, webhookSecret: WEBHOOK_SECRET, apiRoot: fake.url, outboxPollMs: 200 } });
  admin = await adminClient(server);
}, 30_000);
afterAll(async () => {
  await server.close();
  await fake.close();
});

type Created = { account: { proxyUserId: string; proxyPassword: string } };

/** A user with credit, a linked Telegram chat and a webhook for the two events (all through the product's API). */
async function alertedUser(gb: number) {
  const u = await signedInUser(server);
  expect((await admin.post(`/admin/users/${u.user.id}/adjust`, { deltaGB: gb, reason: 'test credit' })).status).toBe(200);
  const chatId = nextChat++;
  const link = await u.client.post<{ code: string }>('/api/telegram/link');
  expect(link.status).toBe(200);
  const linked = await server.client({ origin: null }).post('/telegram/webhook', textUpdate(chatId, `/start ${link.body.code}`), {
    'x-telegram-bot-api-secret-token': WEBHOOK_SECRET,
  });
  expect(linked.status).toBe(200);
  const hook = await u.client.post<{ webhook: { id: string } }>('/api/webhooks', {
    url: 'http://127.0.0.1:9/hook',
    events: ['usage.threshold', 'proxy_account.expiring'],
  });
  expect(hook.status).toBe(201);
  return { ...u, chatId, hookId: hook.body.webhook.id };
}

async function subAccount(client: HttpClient, body: Record<string, unknown>) {
  const created = await client.post<Created>('/api/proxy-accounts', body);
  expect(created.status).toBe(201);
  const gw = internalClient(server).gateway;
  const { account } = await gw.authorize.mutate({ proxyUserId: created.body.account.proxyUserId, password: created.body.account.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  return { id: account.proxyAccountId, proxyUserId: created.body.account.proxyUserId };
}

/** What the user was told, by channel: mails by subject prefix, webhook events and Telegram messages by type. */
async function told(u: { email: string; chatId: number; hookId: string }, mailPrefix: RegExp, event: string, telegram: string) {
  await server.settle();
  const db = server.deps.db;
  const events = await db
    .select({ body: webhookDeliveries.body })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, u.hookId), eq(webhookDeliveries.eventType, event)));
  const chats = await db
    .select({ text: telegramOutbox.text })
    .from(telegramOutbox)
    .where(and(eq(telegramOutbox.chatId, u.chatId), like(telegramOutbox.text, `${telegram}%`)));
  return {
    mails: server.mails(u.email).filter((m) => mailPrefix.test(m.subject)).length,
    events: events.map((e) => (JSON.parse(e.body) as { data: Record<string, unknown> }).data),
    telegram: chats.length,
  };
}

describe('/api/alerts usageAlertPercents', () => {
  it('defaults to [80, 90], saves sorted, keeps it when left out, refuses bad lists with 400 naming it', async () => {
    const { client } = await signedInUser(server);
    expect((await client.get('/api/alerts')).body).toEqual({ lowBalanceGB: null, usageAlertPercents: [80, 90] });
    const set = await client.request('PUT', '/api/alerts', { lowBalanceGB: null, usageAlertPercents: [95, 50, 75] });
    expect(set).toMatchObject({ status: 200, body: { lowBalanceGB: null, usageAlertPercents: [50, 75, 95] } });
    expect((await client.request('PUT', '/api/alerts', { lowBalanceGB: 3 })).body).toEqual({ lowBalanceGB: 3, usageAlertPercents: [50, 75, 95] });
    expect((await client.get('/api/alerts')).body).toEqual({ lowBalanceGB: 3, usageAlertPercents: [50, 75, 95] });

    const bad: Array<[unknown, string]> = [
      [[], 'Usage alert percents must list at least one percent'],
      [[0], 'Usage alert percents must be whole numbers from 1 to 99'],
      [[100], 'Usage alert percents must be whole numbers from 1 to 99'],
      [[50.5], 'Usage alert percents must be whole numbers from 1 to 99'],
      [['80'], 'Usage alert percents must be whole numbers from 1 to 99'],
      [[80, 80], 'Usage alert percents must not repeat'],
      [[1, 2, 3, 4, 5, 6], 'Usage alert percents must list at most 5 percents'],
      ['80', 'Usage alert percents must be whole numbers from 1 to 99'],
    ];
    for (const [value, error] of bad) {
      const r = await client.request<{ success: boolean; error: string }>('PUT', '/api/alerts', { lowBalanceGB: null, usageAlertPercents: value });
      expect({ value, status: r.status, error: r.body.error }).toEqual({ value, status: 400, error });
    }
    // Nothing partial: the threshold of a refused request was not saved either.
    expect((await client.get('/api/alerts')).body).toEqual({ lowBalanceGB: 3, usageAlertPercents: [50, 75, 95] });
  });
});

describe('usage.threshold', () => {
  const GATEWAYS = 8;
  const LEASE = BYTES_PER_GB / BigInt(GATEWAYS);

  it('crossing 80 % then 90 % of a cap under concurrent reports: one mail, event and Telegram message each; a raised cap re-arms', async () => {
    const u = await alertedUser(3);
    const acc = await subAccount(u.client, { name: 'capped', capGB: 1 });
    const gateway = internalClient(server).gateway;
    const leases = await Promise.all(
      Array.from({ length: GATEWAYS }, (_, i) => gateway.reserveLease.mutate({ gatewayId: `gw-ua-${i}`, proxyAccountId: acc.id, bytes: Number(LEASE) })),
    );
    for (const l of leases) expect(l.grantedBytes).toBe(LEASE);
    let seq = 0;
    // Every gateway reports its share of the usage at once.
    const burst = async (bytesEach: bigint) => {
      seq += 1;
      await Promise.all(
        leases.map((l, i) =>
          gateway.report.mutate({
            gatewayId: `gw-ua-${i}`,
            seq,
            items: [{ leaseId: l.leaseId!, bytesUp: 0, bytesDown: Number(bytesEach), sessions: 1, release: false }],
          }),
        ),
      );
    };
    const now = () => told(u, /^\d+% used: the cap of proxy account "capped"/, 'usage.threshold', 'Usage alert:');

    await burst((LEASE * 85n) / 100n);
    let t = await now();
    expect(t.mails).toBe(1);
    expect(t.telegram).toBe(1);
    expect(t.events).toEqual([
      {
        meter: 'cap',
        proxyAccountId: acc.id,
        proxyUserId: acc.proxyUserId,
        percent: 80,
        usedBytes: String(((LEASE * 85n) / 100n) * BigInt(GATEWAYS)),
        limitBytes: String(BYTES_PER_GB),
        period: 'lifetime',
      },
    ]);
    expect(server.mails(u.email).at(-1)!.subject).toBe('80% used: the cap of proxy account "capped"');

    await burst(LEASE / 10n);
    t = await now();
    expect({ mails: t.mails, telegram: t.telegram, percents: t.events.map((e) => e['percent']) }).toEqual({ mails: 2, telegram: 2, percents: [80, 90] });
    // More usage past 90 % crosses nothing new.
    await burst(LEASE / 50n);
    t = await now();
    expect({ mails: t.mails, telegram: t.telegram, events: t.events.length }).toEqual({ mails: 2, telegram: 2, events: 2 });

    // A cap of 2 GB puts usage (0.97 GB) back under 80 %: re-armed without a notice; 80 % of 2 GB notifies again.
    expect((await u.client.request('PATCH', `/api/proxy-accounts/${acc.proxyUserId}`, { capGB: 2 })).status).toBe(200);
    await burst(1n);
    t = await now();
    expect(t.events.length).toBe(2);
    const [mark] = await server.deps.db.select().from(usageAlertMarks).where(eq(usageAlertMarks.subjectId, acc.id));
    expect(mark).toMatchObject({ meter: 'cap', notifiedPercent: 0, limitBytes: 2n * BYTES_PER_GB });
    for (let i = 0; i < GATEWAYS; i++) await gateway.releaseLeases.mutate({ gatewayId: `gw-ua-${i}` });
    const more = await Promise.all(
      Array.from({ length: GATEWAYS }, (_, i) => gateway.reserveLease.mutate({ gatewayId: `gw-ub-${i}`, proxyAccountId: acc.id, bytes: Number(LEASE) })),
    );
    await Promise.all(
      more.map((l, i) =>
        gateway.report.mutate({
          gatewayId: `gw-ub-${i}`,
          seq: 1,
          items: [{ leaseId: l.leaseId!, bytesUp: 0, bytesDown: Number((LEASE * 7n) / 10n), sessions: 1, release: true }],
        }),
      ),
    );
    t = await now();
    expect(t.events.at(-1)).toMatchObject({ meter: 'cap', percent: 80, limitBytes: String(2n * BYTES_PER_GB) });
    expect({ mails: t.mails, telegram: t.telegram, events: t.events.length }).toEqual({ mails: 3, telegram: 3, events: 3 });
    await expectLedgerOk(server);
  });

  it('a daily limit notifies once a day: the next UTC day re-arms it', async () => {
    const u = await alertedUser(1);
    const acc = await subAccount(u.client, { name: 'daily', dailyLimitGB: 0.01 });
    const gateway = internalClient(server).gateway;
    const spend = async (gatewayId: string, bytes: number) => {
      const lease = await gateway.reserveLease.mutate({ gatewayId, proxyAccountId: acc.id, bytes: 10_000_000 });
      expect(lease.outcome).toBe('granted');
      for (const half of [0, 1])
        await gateway.report.mutate({
          gatewayId,
          seq: half + 1,
          items: [{ leaseId: lease.leaseId!, bytesUp: 0, bytesDown: bytes / 2, sessions: 1, release: half === 1 }],
        });
    };
    const now = () => told(u, /^80% used: the daily limit of proxy account "daily"/, 'usage.threshold', 'Usage alert: 80% of the daily limit');
    const today = new Date().toISOString().slice(0, 10);

    await spend('gw-day-1', 9_000_000);
    let t = await now();
    expect({ mails: t.mails, telegram: t.telegram }).toEqual({ mails: 1, telegram: 1 });
    expect(t.events).toEqual([expect.objectContaining({ meter: 'daily', percent: 80, usedBytes: '9000000', period: today })]);

    // As if that day were yesterday: the account's day counter and the alert's mark both dated the day before.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await server.deps.db.update(proxyAccounts).set({ usageDay: yesterday }).where(eq(proxyAccounts.id, acc.id));
    await server.deps.db.update(usageAlertMarks).set({ period: yesterday }).where(eq(usageAlertMarks.subjectId, acc.id));
    await spend('gw-day-2', 9_000_000);
    t = await now();
    expect({ mails: t.mails, telegram: t.telegram }).toEqual({ mails: 2, telegram: 2 });
    expect(t.events.map((e) => [e['period'], e['usedBytes']])).toEqual([
      [today, '9000000'],
      [today, '9000000'],
    ]);
  });
});

describe('usage.threshold, monthly', () => {
  it('a monthly limit notifies once a month: the next UTC month re-arms it', async () => {
    const u = await alertedUser(1);
    const acc = await subAccount(u.client, { name: 'monthly', monthlyLimitGB: 0.01 });
    const gateway = internalClient(server).gateway;
    const spend = async (gatewayId: string) => {
      const lease = await gateway.reserveLease.mutate({ gatewayId, proxyAccountId: acc.id, bytes: 10_000_000 });
      expect(lease.outcome).toBe('granted');
      await gateway.report.mutate({ gatewayId, seq: 1, items: [{ leaseId: lease.leaseId!, bytesUp: 0, bytesDown: 9_800_000, sessions: 1, release: true }] });
    };
    const now = () => told(u, /^90% used: the monthly limit of proxy account "monthly"/, 'usage.threshold', 'Usage alert: 90% of the monthly limit');
    const month = new Date().toISOString().slice(0, 7);

    // 9.8 MB of 10.7 MB is past both 80 % and 90 % in one report: one notice, for 90 %.
    await spend('gw-month-1');
    let t = await now();
    expect({ mails: t.mails, telegram: t.telegram }).toEqual({ mails: 1, telegram: 1 });
    expect(t.events).toEqual([expect.objectContaining({ meter: 'monthly', percent: 90, usedBytes: '9800000', limitBytes: '10737419', period: month })]);

    // As if that was last month.
    const d = new Date();
    const lastMonthDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 15)).toISOString().slice(0, 10);
    await server.deps.db.update(proxyAccounts).set({ usageDay: lastMonthDay }).where(eq(proxyAccounts.id, acc.id));
    await server.deps.db
      .update(usageAlertMarks)
      .set({ period: lastMonthDay.slice(0, 7) })
      .where(eq(usageAlertMarks.subjectId, acc.id));
    await spend('gw-month-2');
    t = await now();
    expect({ mails: t.mails, telegram: t.telegram, periods: t.events.map((e) => e['period']) }).toEqual({ mails: 2, telegram: 2, periods: [month, month] });
  });
});

describe('usage.threshold, plan allowance', () => {
  const GATEWAYS = 8;
  const LEASE = BYTES_PER_GB / BigInt(GATEWAYS);
  const pay = (client: HttpClient, invoiceUrl: string) =>
    client.request('POST', new URL(invoiceUrl).pathname, 'outcome=finished', { 'content-type': 'application/x-www-form-urlencoded' });

  it("80 % then 90 % of a period's allowance under concurrent reports: once each; the next period re-arms", async () => {
    const plan = (await admin.post<{ plan: { id: string } }>('/admin/plans', { name: 'Alerted 1', gbPerPeriod: 1, priceCents: 1000, period: 'month' })).body
      .plan;
    const u = await alertedUser(1);
    const sub = await u.client.post<{ invoiceUrl: string }>('/api/subscriptions', { planId: plan.id });
    expect((await pay(u.client, sub.body.invoiceUrl)).status).toBe(303);
    const [row] = await server.deps.db.select().from(subscriptions).where(eq(subscriptions.planId, plan.id));
    // No cap or limit on the account: the plan is the only meter.
    const acc = await subAccount(u.client, { name: 'on-plan' });
    const gateway = internalClient(server).gateway;
    const spendAll = async (prefix: string, seq: number, bytesEach: bigint, leases: Array<{ leaseId: string | null }>, release = false) =>
      Promise.all(
        leases.map((l, i) =>
          gateway.report.mutate({
            gatewayId: `${prefix}-${i}`,
            seq,
            items: [{ leaseId: l.leaseId!, bytesUp: 0, bytesDown: Number(bytesEach), sessions: 1, release }],
          }),
        ),
      );
    const reserve = (prefix: string) =>
      Promise.all(
        Array.from({ length: GATEWAYS }, (_, i) => gateway.reserveLease.mutate({ gatewayId: `${prefix}-${i}`, proxyAccountId: acc.id, bytes: Number(LEASE) })),
      );
    const now = () => told(u, /^\d+% used: the allowance of plan "Alerted 1" this period$/, 'usage.threshold', 'Usage alert:');

    const leases = await reserve('gw-pl');
    await spendAll('gw-pl', 1, (LEASE * 85n) / 100n, leases);
    let t = await now();
    expect({ mails: t.mails, telegram: t.telegram }).toEqual({ mails: 1, telegram: 1 });
    expect(t.events).toEqual([
      {
        meter: 'plan',
        subscriptionId: row!.id,
        planId: plan.id,
        percent: 80,
        usedBytes: String(((LEASE * 85n) / 100n) * BigInt(GATEWAYS)),
        limitBytes: String(BYTES_PER_GB),
        period: row!.periodStart.toISOString(),
      },
    ]);
    const mail = server.mails(u.email).at(-1)!;
    expect(mail.text).toContain('pay-as-you-go credit');
    expect(mail.text).toContain('/dashboard');

    await spendAll('gw-pl', 2, LEASE / 10n, leases);
    await spendAll('gw-pl', 3, LEASE / 50n, leases, true);
    t = await now();
    expect({ mails: t.mails, telegram: t.telegram, percents: t.events.map((e) => e['percent']) }).toEqual({ mails: 2, telegram: 2, percents: [80, 90] });

    // The renewal paid, the clock past the period's end: the next period's allowance starts again from 0 %.
    let clock = new Date(row!.periodEnd.getTime() - 6 * 86_400_000);
    server.deps.now = () => clock;
    try {
      await planPeriodsTick(server.deps, clock);
      await server.settle();
      const notice = server.mails(u.email).find((m) => m.subject.startsWith('Your Alerted 1 plan renews'))!;
      expect((await pay(u.client, /https?:\/\/\S+\/sandbox\/pay\/[0-9a-f-]{36}/.exec(notice.text)![0])).status).toBe(303);
      clock = new Date(row!.periodEnd.getTime() + 60_000);
      expect((await planPeriodsTick(server.deps, clock)).periodsEnded).toBe(1);
    } finally {
      delete server.deps.now;
    }
    const next = await reserve('gw-pm');
    await spendAll('gw-pm', 1, (LEASE * 85n) / 100n, next, true);
    t = await now();
    expect({ mails: t.mails, telegram: t.telegram }).toEqual({ mails: 3, telegram: 3 });
    expect(t.events.at(-1)).toMatchObject({ meter: 'plan', percent: 80, period: row!.periodEnd.toISOString() });
    await expectLedgerOk(server);
  });
});

describe('proxy_account.expiring', () => {
  it('three days before expiresAt, once across two servers and repeated looks; a new expiresAt re-arms', async () => {
    const u = await alertedUser(1);
    const soon = new Date(Date.now() + 2 * 86_400_000);
    const later = new Date(Date.now() + 5 * 86_400_000);
    const acc = await subAccount(u.client, { name: 'short', expiresAt: soon.toISOString() });
    await subAccount(u.client, { name: 'long', expiresAt: later.toISOString() });
    const db = server.deps.db;
    const now = () => told(u, /^Proxy account "short" expires soon$/, 'proxy_account.expiring', 'Proxy account "short" expires');
    const clock = Date.now();

    // Two servers' timers in the same period: one runs the job.
    const ticks = await Promise.all([expiringAccountsTick(db, server.deps, 'server-a', clock), expiringAccountsTick(db, server.deps, 'server-b', clock)]);
    expect(ticks.filter((r) => r !== null)).toHaveLength(1);
    // The next period, and two looks at once outside any claim: nothing is sent again.
    expect(await expiringAccountsTick(db, server.deps, 'server-b', clock + EXPIRING_PERIOD_MS)).toEqual([]);
    await Promise.all([notifyExpiringAccounts(db, server.deps), notifyExpiringAccounts(db, server.deps)]);
    let t = await now();
    expect({ mails: t.mails, telegram: t.telegram }).toEqual({ mails: 1, telegram: 1 });
    expect(t.events).toEqual([{ proxyAccountId: acc.id, proxyUserId: acc.proxyUserId, name: 'short', expiresAt: soon.toISOString() }]);
    expect(server.mails(u.email).filter((m) => m.subject.includes('"long"'))).toHaveLength(0);

    // A new expiry date is a new notice, once.
    const moved = new Date(soon.getTime() + 86_400_000);
    expect((await u.client.request('PATCH', `/api/proxy-accounts/${acc.proxyUserId}`, { expiresAt: moved.toISOString() })).status).toBe(200);
    await Promise.all([
      expiringAccountsTick(db, server.deps, 'server-a', clock + 2 * EXPIRING_PERIOD_MS),
      expiringAccountsTick(db, server.deps, 'server-b', clock + 2 * EXPIRING_PERIOD_MS),
    ]);
    t = await now();
    expect({ mails: t.mails, telegram: t.telegram }).toEqual({ mails: 2, telegram: 2 });
    expect(t.events.map((e) => e['expiresAt'])).toEqual([soon.toISOString(), moved.toISOString()]);
  });
});
