/**
 * A dry pool is taken out (issue 42, item 3), through real tunnels: two pools serve US, each with a
 * provider account on a fake provider (the custom contract) whose balance the test drains and
 * refills; the server's balance watch runs as in production (here every 1.2 s) and two gateways
 * read the pools at their default interval. Once a pool's account is dry no gateway sends it a new
 * tunnel within 10 s; with both dry, lines are refused `503 No exits available for US` (SOCKS5:
 * reply 1), logged `upstream_unavailable` and billed 0; a refilled pool carries tunnels again
 * within 10 s.
 */
import { connect, type AddressInfo } from 'node:net';
import { loadLocations } from '@proxyhub/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../src/gateway';
import {
  adminClient,
  basic,
  connectTunnel,
  exchangeUntilClosed,
  rawExchange,
  startFakeProvider,
  startGateway,
  startTarget,
  startTestServer,
  userWithCredits,
  type FakeProvider,
  type HttpClient,
  type ProxyUser,
  type TestServer,
} from './helpers';
import { startProxyChainUpstream } from './upstream-proxies';

const MiB = 1024 * 1024;
const GB = 1073741824n;
let server: TestServer;
let admin: HttpClient;
let target: Awaited<ReturnType<typeof startTarget>>;
let user: ProxyUser;
const gateways: Gateway[] = [];
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  loadLocations();
  server = await startTestServer({ backgroundJobs: true, upstreams: { allowPrivate: true, balanceMinutes: 0.02 } });
  admin = await adminClient(server);
  target = await startTarget();
  user = await userWithCredits(server, 200n * BigInt(MiB));
}, 60_000);
afterAll(async () => {
  for (const g of gateways) await g.close();
  for (const c of cleanups) await c();
  await target?.close();
  await server?.close();
});

const port = (g: Gateway) => (g.server.address() as AddressInfo).port;

/** One request through a CONNECT tunnel; true when the target answered. */
async function through(gatewayPort: number): Promise<boolean> {
  const s = await connectTunnel(gatewayPort, target.port, user.username({ country: 'US' }, 0), user.proxyPassword);
  let body = '';
  s.on('data', (d: Buffer) => (body += d.toString('latin1')));
  await exchangeUntilClosed(s, 'GET /hello HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n');
  return body.includes('hello from target');
}

/** The first bytes the gateway answers a CONNECT with (the tunnel, if any, is closed at once). */
function firstAnswer(gatewayPort: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: gatewayPort }, () => s.write(request));
    s.once('data', (d: Buffer) => {
      resolve(d.toString('latin1'));
      s.destroy();
    });
    s.on('error', reject);
  });
}

/** Waits for a condition, polling; how long it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}

async function statusOf(id: string): Promise<string> {
  const r = await admin.get<{ upstreams: Array<{ id: string; account: { status: string } | null }> }>('/admin/upstreams');
  return r.body.upstreams.find((u) => u.id === id)!.account!.status;
}

describe('a dry pool is taken out', () => {
  it('gets no new tunnel on any gateway within 10 s, refuses lines when no pool is left, and is back within 10 s of a refill', async () => {
    const pools: Array<{ id: string; seen: { username: string }[]; provider: FakeProvider }> = [];
    for (const name of ['Pool A', 'Pool B']) {
      const chain = await startProxyChainUpstream('chain-secret');
      const provider = await startFakeProvider('custom', { balanceBytes: 10n * GB });
      cleanups.push(chain.close, provider.close);
      const r = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', {
        name,
        protocol: 'http',
        host: '127.0.0.1',
        port: chain.port,
        usernameTemplate: 'cust-{country}',
        password: 'chain-secret',
        countries: ['US'],
        costPerGbCents: 30,
        account: provider.account({ lowBalanceGB: 1 }),
      });
      expect(r.status).toBe(201);
      // Saved disabled, as every new upstream: enabled as an admin does after a Test.
      expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
      pools.push({ id: r.body.upstream.id, seen: chain.seen, provider });
    }
    const [a, b] = pools as [(typeof pools)[number], (typeof pools)[number]];
    for (let i = 0; i < 2; i++) gateways.push(await startGateway(server, { connectTimeoutMs: 2000 }));
    await within(10_000, async () => (await statusOf(a.id)) === 'ok' && (await statusOf(b.id)) === 'ok');

    // Both pools carry rotating lines (drawn by weight) on both gateways.
    await within(15_000, async () => {
      for (const g of gateways) expect(await through(port(g))).toBe(true);
      return a.seen.length > 0 && b.seen.length > 0;
    });

    // Pool A runs dry: within 10 s of the watch seeing it, no gateway sends it a new tunnel.
    a.provider.balanceBytes = 0n;
    await within(10_000, async () => (await statusOf(a.id)) === 'dry');
    const dryAt = Date.now();
    // The time a probe round starts from: the first round that sends pool A nothing shows the
    // gateways had taken it out by then (the round itself takes seconds on a loaded machine).
    let roundAt = 0;
    await within(10_000, async () => {
      roundAt = Date.now();
      const before = a.seen.length;
      for (let i = 0; i < 6; i++) for (const g of gateways) expect(await through(port(g))).toBe(true);
      return a.seen.length === before;
    });
    expect(roundAt - dryAt).toBeLessThan(10_000);
    const aSeen = a.seen.length;
    for (let i = 0; i < 10; i++) for (const g of gateways) expect(await through(port(g))).toBe(true);
    expect(a.seen.length).toBe(aSeen);

    // Pool B too: no exit is left for US, over HTTP (503) and SOCKS5 (reply 1), billed nothing.
    b.provider.balanceBytes = 0n;
    await within(10_000, async () => (await statusOf(b.id)) === 'dry');
    const bothDryAt = Date.now();
    const connect = `CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\nProxy-Authorization: ${basic(user.username({ country: 'US' }, 0), user.proxyPassword)}\r\n\r\n`;
    await within(10_000, async () => {
      roundAt = Date.now();
      const answers = await Promise.all(gateways.map((g) => firstAnswer(port(g), connect)));
      return answers.every((a) => a.startsWith('HTTP/1.1 503'));
    });
    expect(roundAt - bothDryAt).toBeLessThan(10_000);
    const refused = (await rawExchange(port(gateways[0]!), [Buffer.from(connect)])).data.toString('latin1');
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.slice(refused.indexOf('\r\n\r\n') + 4).trim()).toBe('No exits available for US');

    const name = user.username({ country: 'US' }, 0);
    const socks = await rawExchange(port(gateways[1]!), [
      Buffer.from([5, 1, 2]),
      Buffer.concat([Buffer.from([1, name.length]), Buffer.from(name), Buffer.from([user.proxyPassword.length]), Buffer.from(user.proxyPassword)]),
      Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, target.port >> 8, target.port & 0xff]),
    ]);
    // Method 2, login accepted, then the CONNECT's reply: 1 (general failure).
    expect([...socks.data.subarray(0, 5)]).toEqual([5, 2, 1, 0, 5]);
    expect(socks.data[5]).toBe(1);

    for (const g of gateways) await g.flush();
    const log = await user.client.get<{ connections: Array<{ outcome: string; reason: string; billedBytes: string; protocol: string }> }>('/api/connections');
    const unavailable = log.body.connections.filter((c) => c.outcome === 'upstream_unavailable');
    expect(unavailable.length).toBeGreaterThanOrEqual(2);
    expect(new Set(unavailable.map((c) => c.protocol))).toEqual(new Set(['connect', 'socks5']));
    for (const c of unavailable) expect(c).toMatchObject({ reason: 'No exits available for US', billedBytes: '0' });

    // A is refilled: within 10 s of the watch reading it, lines go out through it again.
    a.provider.balanceBytes = 5n * GB;
    await within(10_000, async () => (await statusOf(a.id)) === 'ok');
    const refilledAt = Date.now();
    const back = a.seen.length;
    await within(10_000, async () => {
      roundAt = Date.now();
      // Refused (503) until the gateway has read the pools again.
      for (const g of gateways) if (!(await through(port(g)).catch(() => false))) return false;
      return true;
    });
    expect(roundAt - refilledAt).toBeLessThan(10_000);
    expect(a.seen.length).toBeGreaterThan(back);
    expect(b.seen.length).toBeGreaterThan(0);
  }, 120_000);
});
