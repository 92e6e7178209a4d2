/**
 * The provider's meter against ours over HTTP: `GET /admin/upstreams/:id/reconciliation` answers
 * one row per UTC day with our bytes (usage reported through the gateway's internal API for that
 * upstream), the provider's figure once fetched, the drift and the cost; `format=csv` the same rows;
 * bad ranges are 400s naming the field.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReconciliationDay } from '@proxyhub/core';
import { adminClient, expectLedgerOk, internalClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

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

async function createUpstream(name: string, costPerGbCents: number) {
  const r = await admin.post<{ upstream: { id: string } }>('/admin/upstreams', {
    name,
    protocol: 'http',
    host: 'pool.example.net',
    port: 8000,
    password: 'pool-secret',
    costPerGbCents,
  });
  expect(r.status).toBe(201);
  return r.body.upstream.id;
}

let reportSeq = 0;
/** Traffic through an upstream as a gateway reports it (the internal API): one lease, one report. */
async function reportTraffic(upstreamId: string, bytesUp: number, bytesDown: number) {
  const { user } = await signedInUser(server);
  await admin.post(`/admin/users/${user.id}/adjust`, { deltaGB: 1, reason: 'test traffic' });
  const gateway = internalClient(server).gateway;
  const { account } = await gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  const lease = await gateway.reserveLease.mutate({ gatewayId: 'gw-recon', proxyAccountId: account.proxyAccountId, bytes: bytesUp + bytesDown });
  const part = { protocol: 'connect' as const, country: 'US', state: '', city: '', upstreamId, bytesUp, bytesDown, sessions: 1 };
  const r = await gateway.report.mutate({
    gatewayId: 'gw-recon',
    seq: ++reportSeq,
    items: [{ leaseId: lease.leaseId!, bytesUp, bytesDown, sessions: 1, release: true, parts: [part] }],
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
