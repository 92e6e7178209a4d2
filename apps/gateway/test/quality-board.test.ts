/**
 * The measured quality board (issue 48, item 4), through the real gateway: the server's prober runs
 * as in production (every QUALITY_PROBE_MINUTES = 0.1, two servers' jobs, one round a period) over the one offered country (US), through
 * its one pool, a loopback CONNECT upstream that fails every other tunnel, to the IP-echo page. The
 * probes are stored; the country goes degraded (an incident opens) and the confirmed subscriber
 * gets exactly one mail for it, the unconfirmed one none; once the upstream heals and 3 probes pass
 * the incident closes with exactly one more mail. Nobody's wallet or usage moves, the prober's own
 * account has nothing to spend and spends nothing. The public board answers its shape; the
 * subscribe double opt-in and the unsubscribe link work, each link once.
 */
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocations, PROBE_BATCH_CODE, runQualityProbes } from '@proxyhub/api';
import { batches, gatewayLeases, jobClaims, proxyAccounts, qualityIncidents, qualityProbes } from '@proxyhub/db';
import { startBackgroundJobs } from '@proxyhub/server';
import type { Gateway } from '../src/gateway';
import {
  adminClient,
  balances,
  hourlyUsage,
  startGateway,
  startTarget,
  startTestServer,
  userWithCredits,
  type Mail,
  type ProxyUser,
  type TestServer,
} from './helpers';

let server: TestServer;
let gateway: Gateway;
let target: Awaited<ReturnType<typeof startTarget>>;
let flaky: Awaited<ReturnType<typeof startFlakyUpstream>>;
let customer: ProxyUser;
let upstreamId: string;
const stopJobs: Array<() => Promise<void>> = [];
const CONFIRMED = 'watcher@example.com';
const UNCONFIRMED = 'lurker@example.com';

/**
 * A provider's HTTP CONNECT endpoint on loopback that refuses every other tunnel (the 1st, 3rd, ...)
 * with 502, or every one with `healthy` set, and relays the rest to where they ask.
 */
async function startFlakyUpstream() {
  const state = { connects: 0, healthy: false };
  const server: Server = createServer((client: Socket) => {
    client.on('error', () => undefined);
    client.once('data', (head: Buffer) => {
      state.connects += 1;
      const m = /^CONNECT ([^\s:]+):(\d+) /.exec(head.toString('latin1'));
      if (!m || (!state.healthy && state.connects % 2 === 1)) return void client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      const out = connect({ host: m[1]!, port: Number(m[2]) }, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        client.pipe(out).pipe(client);
      });
      out.on('error', () => client.destroy());
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { state, port: (server.address() as AddressInfo).port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The `name=` token of a status mail's link. */
function linkToken(mail: Mail, name: 'confirm' | 'unsubscribe'): string {
  const m = new RegExp(`/status\\?${name}=([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!m) throw new Error(`no ${name} link in: ${mail.text}`);
  return m[1]!;
}

const statusMails = (to: string) => server.mails(to).filter((m) => m.subject.startsWith('ProxyHub status:'));

beforeAll(async () => {
  loadLocations();
  server = await startTestServer({ quality: { probeMinutes: 0.1, cacheMs: 0 }, upstreams: { allowPrivate: true } });
  const admin = await adminClient(server);
  target = await startTarget();
  flaky = await startFlakyUpstream();
  expect((await admin.request('PUT', '/admin/catalogue', { countries: ['US'] })).status).toBe(200);
  const up = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', {
    name: 'flaky',
    protocol: 'http',
    host: '127.0.0.1',
    port: flaky.port,
    usernameTemplate: 'cust-{country}',
    password: 'flaky-secret',
    countries: ['US'],
  });
  expect(up.status).toBe(201);
  upstreamId = up.body.upstream.id;
  expect((await admin.request('PATCH', `/admin/upstreams/${upstreamId}`, { enabled: true })).status).toBe(200);
  gateway = await startGateway(server);
  // The check page says the exit is 8.8.8.8, a US address.
  server.config.proxyCheck = { url: `${target.url}/ip?as=8.8.8.8`, gateway: { host: '127.0.0.1', port: (gateway.server.address() as AddressInfo).port } };
  customer = await userWithCredits(server, 50n << 20n);
}, 60_000);

afterAll(async () => {
  for (const stop of stopJobs) await stop();
  await gateway?.close();
  await server?.close();
  await target?.close();
  await flaky?.close();
});

describe('the quality board', () => {
  it('subscribes an address only through the link it mails, and refuses a bad address with why', async () => {
    const c = server.client();
    const bad = await c.post<{ error: string }>('/api/status/subscribe', { email: 'not-an-address' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Please enter a valid email address');

    for (const email of [CONFIRMED, UNCONFIRMED]) {
      const r = await c.post('/api/status/subscribe', { email });
      expect(r).toMatchObject({ status: 200, body: { success: true, message: 'Check your inbox: follow the link we sent to confirm the subscription.' } });
    }
    await server.settle();
    const [confirmMail] = server.mails(CONFIRMED);
    expect(confirmMail?.subject).toBe('Confirm ProxyHub status mails');
    const token = linkToken(confirmMail!, 'confirm');
    const ok = await c.post('/api/status/confirm', { token });
    expect(ok).toMatchObject({ status: 200, body: { success: true } });
    // Used once.
    const again = await c.post<{ error: string }>('/api/status/confirm', { token });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('This link is invalid or expired');
    // A confirmed address asking again gets no second confirmation mail.
    await c.post('/api/status/subscribe', { email: CONFIRMED });
    await server.settle();
    expect(server.mails(CONFIRMED)).toHaveLength(1);
  });

  it('probes through the gateway: the flaky country goes degraded, one mail per confirmed subscriber, nothing billed', async () => {
    const before = { wallet: await balances(customer), usage: await hourlyUsage(server, customer.userId) };
    // Two servers' periodic jobs on one database, as a fleet of two runs them.
    for (let i = 0; i < 2; i++) stopJobs.push(await startBackgroundJobs({ deps: server.deps, periodic: true }));
    const db = server.database.db;

    // Fail, pass, fail: 1 of the last 3 is below 0.5, the incident opens (the 3rd round, about 12 s in).
    await expect
      .poll(async () => (await db.select().from(qualityIncidents).where(eq(qualityIncidents.country, 'US'))).length, { timeout: 40_000, interval: 500 })
      .toBe(1);
    await expect.poll(() => statusMails(CONFIRMED).length, { timeout: 10_000 }).toBe(1);
    const [opened] = statusMails(CONFIRMED);
    expect(opened!.subject).toBe('ProxyHub status: US degraded');
    expect(opened!.text).toContain('US is degraded');
    linkToken(opened!, 'unsubscribe');

    // Two more rounds (pass, fail): still degraded, still one mail; the unconfirmed address got only its confirmation.
    const probesNow = (await db.select().from(qualityProbes)).length;
    await expect.poll(async () => (await db.select().from(qualityProbes)).length, { timeout: 20_000, interval: 500 }).toBeGreaterThanOrEqual(probesNow + 2);
    await server.settle();
    expect(statusMails(CONFIRMED)).toHaveLength(1);
    expect(server.mails(UNCONFIRMED).map((m) => m.subject)).toEqual(['Confirm ProxyHub status mails']);

    // One round per period across the fleet: as many probes (one target) as periods claimed, give or take the round running now.
    const claims = await db.select().from(jobClaims).where(eq(jobClaims.job, 'quality-probes'));
    // The probes as stored: every one through the pool, about half passing, the passing ones' exit in US.
    const probes = await db.select().from(qualityProbes);
    expect(probes.length).toBeGreaterThanOrEqual(claims.length - 1);
    expect(probes.length).toBeLessThanOrEqual(claims.length);
    expect(probes.every((p) => p.country === 'US' && p.upstreamId === upstreamId)).toBe(true);
    expect(probes.filter((p) => p.ok).length).toBeGreaterThan(0);
    expect(probes.filter((p) => !p.ok).length).toBeGreaterThan(0);
    expect(probes.filter((p) => p.ok).every((p) => p.exitCountry === 'US' && typeof p.connectMs === 'number')).toBe(true);

    // The public board.
    const board = await server.client().get<{ countries: Array<Record<string, unknown>> }>('/api/status/quality');
    expect(board.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(board.body.countries).toEqual([
      {
        country: 'US',
        okRate24h: expect.any(Number),
        p50ConnectMs: expect.any(Number),
        p95ConnectMs: expect.any(Number),
        exitCountryMatchRate: 1,
        degraded: true,
        days: [{ date: today, okRate: expect.any(Number) }],
      },
    ]);
    const rate = board.body.countries[0]!.okRate24h as number;
    expect(rate).toBeGreaterThan(0.3);
    expect(rate).toBeLessThan(0.7);

    // Not billed: the customer's wallet and usage did not move; the prober's account holds and spent nothing.
    await gateway.flush();
    expect(await balances(customer)).toEqual(before.wallet);
    expect(await hourlyUsage(server, customer.userId)).toEqual(before.usage);
    const [batch] = await db.select().from(batches).where(eq(batches.batchCode, PROBE_BATCH_CODE));
    expect(batch).toMatchObject({ creditsBytes: 0n, totalUsageBytes: 0n, associatedUserId: null });
    const [account] = await db.select().from(proxyAccounts).where(eq(proxyAccounts.batchId, batch!.id));
    expect(account).toMatchObject({ usedBytes: 0n });
    const leases = await db.select().from(gatewayLeases).where(eq(gatewayLeases.proxyAccountId, account!.id));
    expect(leases.every((l) => l.grantedBytes === 0n && l.usedBytes === 0n)).toBe(true);
  }, 90_000);

  it('closes the incident when 3 probes pass, with one more mail, whose unsubscribe link works once', async () => {
    flaky.state.healthy = true;
    const db = server.database.db;
    await expect
      .poll(async () => (await db.select().from(qualityIncidents).where(eq(qualityIncidents.country, 'US')))[0]?.closedAt ?? null, {
        timeout: 40_000,
        interval: 500,
      })
      .not.toBeNull();
    await expect.poll(() => statusMails(CONFIRMED).length, { timeout: 10_000 }).toBe(2);
    const closed = statusMails(CONFIRMED)[1]!;
    expect(closed.subject).toBe('ProxyHub status: US recovered');
    expect(server.mails(UNCONFIRMED)).toHaveLength(1);
    const board = await server.client().get<{ countries: Array<{ degraded: boolean }> }>('/api/status/quality');
    expect(board.body.countries[0]!.degraded).toBe(false);

    const c = server.client();
    const token = linkToken(closed, 'unsubscribe');
    expect(await c.post('/api/status/unsubscribe', { token })).toMatchObject({ status: 200, body: { success: true } });
    const again = await c.post<{ error: string }>('/api/status/unsubscribe', { token });
    expect(again).toMatchObject({ status: 400, body: { error: 'This link is invalid or expired' } });
  }, 90_000);
});

describe('the prober with direct egress', () => {
  it('probes each offered country once, upstream null, through the gateway to the check page', async () => {
    const direct = await startTestServer({ quality: { cacheMs: 0 } });
    const directGateway = await startGateway(direct);
    try {
      const admin = await adminClient(direct);
      expect((await admin.request('PUT', '/admin/catalogue', { countries: ['DE', 'US'] })).status).toBe(200);
      direct.config.proxyCheck = {
        url: `${target.url}/ip?as=8.8.8.8`,
        gateway: { host: '127.0.0.1', port: (directGateway.server.address() as AddressInfo).port },
      };
      const round = await runQualityProbes(direct.database.db, direct.deps.secrets, direct.config);
      expect(round).toEqual({ probes: 2, failed: 0, incidents: [] });
      const rows = await direct.database.db.select().from(qualityProbes);
      expect(rows.map((r) => [r.country, r.upstreamId, r.ok, r.exitCountry]).sort()).toEqual([
        ['DE', null, true, 'US'],
        ['US', null, true, 'US'],
      ]);
      const board = await direct.client().get<{ countries: Array<{ country: string; exitCountryMatchRate: number }> }>('/api/status/quality');
      expect(board.body.countries.map((c) => [c.country, c.exitCountryMatchRate])).toEqual([
        ['DE', 0],
        ['US', 1],
      ]);
    } finally {
      await directGateway.close();
      await direct.close();
    }
  });
});
