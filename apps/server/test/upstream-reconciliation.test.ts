/**
 * The provider's meter against ours over HTTP: `GET /admin/upstreams/:id/reconciliation` answers
 * one row per UTC day with our bytes (the connection log's records through that upstream, as the
 * gateway reports them through its internal API), the provider's figure once fetched, the drift and the cost; `format=csv` the same rows;
 * bad ranges are 400s naming the field. `POST .../reconcile` asks a fake of the `custom` usage
 * contract on loopback: a day is stored once, refetched until it is 3 days old, a failure stores
 * nothing, a drift over 3 % raises one alert per upstream and day; the nightly run claims its day on
 * one server only.
 */
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayLogRow, GatewayLogSession, ReconciliationDay } from '@proxyhub/core';
import { maintainConnectionLog, reconcileTick, upstreamReconciliation } from '@proxyhub/api';
import { BYTES_PER_GB } from '@proxyhub/core';
import { adminClient, expectLedgerOk, internalClient } from './credits-helpers';
import { signedInUser, startFakeJsonApi, startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

type Day = ReconciliationDay;

const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);

async function createUpstream(name: string, costPerGbCents: number, account: Record<string, unknown> | null = null) {
  const r = await admin.post<{ upstream: { id: string } }>('/admin/upstreams', {
    name,
    protocol: 'http',
    host: 'pool.example.net',
    port: 8000,
    password: 'pool-secret',
    costPerGbCents,
    account,
  });
  expect(r.status).toBe(201);
  return r.body.upstream.id;
}

let reportSeq = 0;
/**
 * Traffic through an upstream as a gateway reports it (the internal API): one lease, one report,
 * its usage and the connection log's record of the connection. `lineTest`: bytes of the server's
 * line test through the same upstream in the same report (logged, never billed).
 */
async function reportTraffic(upstreamId: string, bytesUp: number, bytesDown: number, lineTest?: { bytesUp: number; bytesDown: number }) {
  const { user } = await signedInUser(server);
  await admin.post(`/admin/users/${user.id}/adjust`, { deltaGB: 1, reason: 'test traffic' });
  const gateway = internalClient(server).gateway;
  const { account } = await gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  const lease = await gateway.reserveLease.mutate({ gatewayId: 'gw-recon', proxyAccountId: account.proxyAccountId, bytes: bytesUp + bytesDown });
  const part = { protocol: 'connect' as const, country: 'US', state: '', city: '', upstreamId, bytesUp, bytesDown, sessions: 1 };
  const session = (key: number, test: 0 | 1): GatewayLogSession => [key, user.proxyUserId, account.proxyAccountId, 'US', '', '', 'rotating', test];
  const row = (key: number, up: number, down: number): GatewayLogRow => [
    Date.now() - 1000,
    200,
    'connect',
    'example.com:443',
    key,
    up,
    down,
    'ok',
    '',
    '',
    upstreamId,
  ];
  const r = await gateway.report.mutate({
    gatewayId: 'gw-recon',
    seq: ++reportSeq,
    items: [{ leaseId: lease.leaseId!, bytesUp, bytesDown, sessions: 1, release: true, parts: [part] }],
    logSessions: [session(1, 0), ...(lineTest ? [session(2, 1)] : [])],
    logRows: [row(1, bytesUp, bytesDown), ...(lineTest ? [row(2, lineTest.bytesUp, lineTest.bytesDown)] : [])],
  });
  expect(r.applied).toBe(true);
}

describe('GET /admin/upstreams/:id/reconciliation', () => {
  it('answers every day of the range with our bytes through that upstream, the provider not yet fetched', async () => {
    const id = await createUpstream('Recon A', 50);
    const other = await createUpstream('Recon B', 50);
    await reportTraffic(id, 1000, 250_000);
    await reportTraffic(other, 7, 7);
    const r = await admin.get<{ days: Day[] }>(`/admin/upstreams/${id}/reconciliation`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['days']);
    // The default: the last 30 days, today included, oldest first.
    expect(r.body.days).toHaveLength(30);
    expect(r.body.days[0]!.date).toBe(daysAgo(29));
    expect(r.body.days[29]).toEqual({
      date: today(),
      providerBytes: null,
      ourBytes: '251000',
      driftBytes: null,
      driftPercent: null,
      costCents: null,
      fetchedAt: null,
    });
    expect(r.body.days.slice(0, 29).every((d) => d.ourBytes === '0' && d.providerBytes === null)).toBe(true);

    const range = await admin.get<{ days: Day[] }>(`/admin/upstreams/${id}/reconciliation?from=${daysAgo(2)}&to=${today()}`);
    expect(range.body.days.map((d) => d.date)).toEqual([daysAgo(2), daysAgo(1), today()]);

    const csv = await admin.get<string>(`/admin/upstreams/${id}/reconciliation?from=${daysAgo(1)}&to=${today()}&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.body).toBe(`date,providerBytes,ourBytes,driftBytes,driftPercent,costCents,fetchedAt\n${daysAgo(1)},,0,,,,\n${today()},,251000,,,,\n`);
  });

  it('refuses a range over 92 days, a reversed range and a malformed date with a 400 naming the field; unknown ids are 404s', async () => {
    const id = await createUpstream('Recon range', 0);
    const get = (q: string) => admin.get<{ success: boolean; error: string }>(`/admin/upstreams/${id}/reconciliation?${q}`);
    expect((await get('from=2026-01-01&to=2026-04-02')).status).toBe(200); // 92 days
    expect(await get('from=2026-01-01&to=2026-04-03')).toMatchObject({
      status: 400,
      body: { success: false, error: 'to must be at most 92 days from from (both included)' },
    });
    expect(await get('from=2026-02-01&to=2026-01-01')).toMatchObject({ status: 400, body: { error: 'from must not be after to' } });
    expect(await get('from=2026-13-01')).toMatchObject({ status: 400, body: { error: 'from must be a date (YYYY-MM-DD)' } });
    expect(await get('to=yesterday')).toMatchObject({ status: 400, body: { error: 'to must be a date (YYYY-MM-DD)' } });
    // from alone: to is today, so a from long ago is over 92 days too.
    expect(await get(`from=${daysAgo(200)}`)).toMatchObject({ status: 400, body: { error: 'to must be at most 92 days from from (both included)' } });
    expect(await get('format=xml')).toMatchObject({ status: 400, body: { error: 'Format must be json or csv' } });
    expect((await admin.get('/admin/upstreams/00000000-0000-4000-8000-000000000000/reconciliation')).status).toBe(404);
    expect((await server.client().get(`/admin/upstreams/${id}/reconciliation`)).status).toBe(401);
  });
});

const KEY = 'usage-key-0123456789abcdef';
/** A provider's usage API in the `custom` contract: its count per day as the test sets it; every call recorded. */
async function fakeProvider() {
  const usage = new Map<string, string>();
  const calls: string[] = [];
  let answer: ((date: string) => { status: number; body: unknown }) | null = null;
  const api = await startFakeJsonApi((req, send) => {
    const url = new URL(req.url, 'http://provider');
    if (req.headers.authorization !== `Bearer ${KEY}`) return send(401, { error: 'Invalid API key' });
    if (url.pathname === '/balance') return send(200, { bytes: String(100n * BYTES_PER_GB) });
    const date = url.searchParams.get('date') ?? '';
    calls.push(date);
    if (answer) {
      const a = answer(date);
      return send(a.status, a.body);
    }
    send(200, { date, bytes: usage.get(date) ?? '0' });
  });
  cleanups.push(api.close);
  return {
    usage,
    calls,
    answerWith: (f: typeof answer) => (answer = f),
    account: (key = KEY) => ({ provider: 'custom', apiKey: key, balanceUrl: `${api.url}/balance`, usageUrl: `${api.url}/usage` }),
  };
}
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

type Outcome = { date: string; status: string; error: string | null };
const reconcile = (id: string, body: Record<string, unknown> = {}) =>
  admin.post<{ success: boolean; days: Outcome[]; error?: string }>(`/admin/upstreams/${id}/reconcile`, body);
const dayRow = async (id: string, date: string) =>
  (await admin.get<{ days: Day[] }>(`/admin/upstreams/${id}/reconciliation?from=${date}&to=${date}`)).body.days[0]!;
const driftAlerts = async (upstreamId: string) =>
  (await admin.get<{ alerts: Array<{ kind: string; upstreamId: string; message: string }> }>('/admin/alerts')).body.alerts.filter(
    (a) => a.kind === 'upstream_drift' && a.upstreamId === upstreamId,
  );

describe('POST /admin/upstreams/:id/reconcile', () => {
  it("stores the provider's count per day: drift, percent and cost beside ours; refetched until the day is 3 days old", async () => {
    const provider = await fakeProvider();
    const id = await createUpstream('Recon fetch', 300, provider.account());
    await reportTraffic(id, 0, 1_000_000);
    provider.usage.set(today(), '1020000');
    provider.usage.set(daysAgo(1), String(2n * BYTES_PER_GB));

    expect(await reconcile(id, { date: today() })).toMatchObject({
      status: 200,
      body: { success: true, days: [{ date: today(), status: 'fetched', error: null }] },
    });
    const row = await dayRow(id, today());
    expect(row).toMatchObject({ providerBytes: '1020000', ourBytes: '1000000', driftBytes: '20000', driftPercent: 2, costCents: 0 });
    expect(Date.now() - Date.parse(row.fetchedAt!)).toBeLessThan(60_000);
    // 2 % is under the 3 % threshold: no alert.
    expect(await driftAlerts(id)).toEqual([]);

    // Without a date: the 7 days before today, oldest first.
    const week = await reconcile(id);
    expect(week.body.days).toEqual([7, 6, 5, 4, 3, 2, 1].map((n) => ({ date: daysAgo(n), status: 'fetched', error: null })));
    // 2 GiB at $3.00/GB is 600 cents; no traffic of ours that day: no percentage.
    expect(await dayRow(id, daysAgo(1))).toMatchObject({
      providerBytes: String(2n * BYTES_PER_GB),
      ourBytes: '0',
      driftBytes: String(2n * BYTES_PER_GB),
      driftPercent: null,
      costCents: 600,
    });
    expect(await dayRow(id, daysAgo(5))).toMatchObject({ providerBytes: '0', driftPercent: null, costCents: 0 });

    // The provider finishes its counts late: days under 3 days old are asked again, older ones are final.
    provider.usage.set(daysAgo(1), String(3n * BYTES_PER_GB));
    provider.usage.set(daysAgo(5), '999');
    const again = await reconcile(id);
    expect(again.body.days).toEqual([
      ...[7, 6, 5, 4, 3].map((n) => ({ date: daysAgo(n), status: 'final', error: null })),
      ...[2, 1].map((n) => ({ date: daysAgo(n), status: 'fetched', error: null })),
    ]);
    expect((await dayRow(id, daysAgo(1))).providerBytes).toBe(String(3n * BYTES_PER_GB));
    expect((await dayRow(id, daysAgo(5))).providerBytes).toBe('0');
    // An admin naming the day fetches it whatever its age.
    expect((await reconcile(id, { date: daysAgo(5) })).body.days).toEqual([{ date: daysAgo(5), status: 'fetched', error: null }]);
    expect((await dayRow(id, daysAgo(5))).providerBytes).toBe('999');
  });

  it('a drift over 3 % raises one alert per upstream and day, however often and concurrently the day is fetched', async () => {
    const provider = await fakeProvider();
    const id = await createUpstream('Recon drift', 100, provider.account());
    await reportTraffic(id, 200_000, 800_000);
    provider.usage.set(today(), '1040000');
    const results = await Promise.all([1, 2, 3, 4].map(() => reconcile(id, { date: today() })));
    for (const r of results) expect(r.body.days).toEqual([{ date: today(), status: 'fetched', error: null }]);
    expect(await dayRow(id, today())).toMatchObject({ providerBytes: '1040000', ourBytes: '1000000', driftBytes: '40000', driftPercent: 4 });
    const alerts = await driftAlerts(id);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.message).toBe(`Recon drift: the provider counted 4% more than we did on ${today()} (1040000 bytes against 1000000)`);
    await reconcile(id, { date: today() });
    expect(await driftAlerts(id)).toHaveLength(1);
    // A provider counting less than we do is no alert.
    const under = await createUpstream('Recon under', 100, (await fakeProvider()).account());
    expect((await reconcile(under, { date: today() })).status).toBe(200);
    expect(await driftAlerts(under)).toEqual([]);
  });

  it('a failed fetch stores nothing and says why; bad input is a 400 naming the field; no account is a 409', async () => {
    const provider = await fakeProvider();
    const wrongKey = await createUpstream('Recon wrong key', 100, provider.account('not-the-key-0123456789'));
    const r = await reconcile(wrongKey, { date: today() });
    expect(r.status).toBe(200);
    expect(r.body.days).toHaveLength(1);
    expect(r.body.days[0]).toMatchObject({ date: today(), status: 'error' });
    expect(r.body.days[0]!.error).toMatch(/401/);
    expect((await dayRow(wrongKey, today())).providerBytes).toBeNull();

    const id = await createUpstream('Recon broken', 100, provider.account());
    for (const answer of [
      { status: 200, body: { date: today(), bytes: -5 } },
      { status: 200, body: { nothing: true } },
      { status: 500, body: { error: 'down' } },
    ]) {
      provider.answerWith(() => answer);
      const broken = await reconcile(id, { date: today() });
      expect(broken.body.days[0]).toMatchObject({ status: 'error' });
      expect(broken.body.days[0]!.error).toBeTruthy();
      expect((await dayRow(id, today())).providerBytes).toBeNull();
    }
    provider.answerWith(null);

    expect(await reconcile(id, { date: 'yesterday' })).toMatchObject({ status: 400, body: { error: 'date must be a date (YYYY-MM-DD)' } });
    const tomorrow = new Date(Date.now() + DAY_MS).toISOString().slice(0, 10);
    expect(await reconcile(id, { date: tomorrow })).toMatchObject({ status: 400, body: { error: 'date must not be after today (UTC)' } });
    const bare = await createUpstream('Recon no account', 100);
    expect(await reconcile(bare, { date: today() })).toMatchObject({ status: 409, body: { error: 'This upstream has no provider account to reconcile with' } });
    expect((await reconcile('00000000-0000-4000-8000-000000000000', { date: today() })).status).toBe(404);
  });

  it('the nightly run: of two servers ticking for the same day, one asks each provider for the 7 days', async () => {
    const provider = await fakeProvider();
    const id = await createUpstream('Recon nightly', 100, provider.account());
    provider.usage.set(daysAgo(1), '123456');
    const now = Date.now();
    const [a, b] = await Promise.all([reconcileTick(server.deps, 'server-a', now), reconcileTick(server.deps, 'server-b', now)]);
    expect([a, b].filter((x) => x !== null)).toHaveLength(1);
    expect(provider.calls.sort()).toEqual([7, 6, 5, 4, 3, 2, 1].map(daysAgo).sort());
    expect((await dayRow(id, daysAgo(1))).providerBytes).toBe('123456');
    // Later that day nothing runs again.
    expect(await reconcileTick(server.deps, 'server-a', now + 60_000)).toBeNull();
    expect(provider.calls).toHaveLength(7);
  });

  it("our bytes are the connection log's through that upstream (a line test's unbilled bytes too), kept with the provider's once the log's day is gone", async () => {
    const provider = await fakeProvider();
    const id = await createUpstream('Recon log', 100, provider.account());
    // 300 + 60,000 billed, and a line test's 40 + 4,000 through the same pool, never billed.
    await reportTraffic(id, 300, 60_000, { bytesUp: 40, bytesDown: 4_000 });
    const billed = await server.deps.db.execute(sql`select coalesce(sum(bytes_up + bytes_down), 0)::text as b from usage_daily where upstream_id = ${id}`);
    expect((Array.isArray(billed) ? billed : (billed as { rows: unknown[] }).rows)[0]).toEqual({ b: '60300' });
    expect((await dayRow(id, today())).ourBytes).toBe('64340');

    provider.usage.set(today(), '64340');
    expect((await reconcile(id, { date: today() })).body.days).toEqual([{ date: today(), status: 'fetched', error: null }]);
    expect(await dayRow(id, today())).toMatchObject({ providerBytes: '64340', ourBytes: '64340', driftBytes: '0', driftPercent: 0 });

    // Two days on, with a log kept one day, today's partition is dropped: the figure stored at the fetch answers.
    const later = Date.now() + 2 * DAY_MS;
    expect((await maintainConnectionLog(server.deps.db, later, 1)).dropped).toContain(`connection_log_${today().replaceAll('-', '')}`);
    const kept = await upstreamReconciliation(server.deps.db, { id, from: today(), to: today() }, 1, later);
    expect(kept.days).toEqual([expect.objectContaining({ date: today(), providerBytes: '64340', ourBytes: '64340', driftBytes: '0' })]);
  });
});
