/**
 * Upstream pools through real sockets: two local upstreams (proxy-chain over HTTP CONNECT, a SOCKS5
 * one) configured by an admin over HTTP. Tunnels go by country and weight, a sticky session keeps
 * its pool (the one its session id hashes to, on every gateway), a line with a city prefers a pool
 * whose template carries {city}, a stopped or silent pool is passed over without the client seeing an error (and is
 * marked down), the admin's changes reach a running gateway, and usage lands on the pool that
 * carried it. With no pool serving, GATEWAY_UPSTREAM_URL is the default; with neither, direct.
 */
import type { AddressInfo } from 'node:net';
import { loadLocations } from '@proxyhub/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../src/gateway';
import { templateUses, UpstreamPool, type Upstream } from '../src/upstream-pool';
import {
  adminClient,
  connectTunnel,
  curl,
  exchangeUntilClosed,
  expectLedgerHolds,
  hourlyUsage,
  startGateway,
  startTestServer,
  startTarget,
  userWithCredits,
  type HttpClient,
  type ProxyUser,
  type TestServer,
} from './helpers';
import { startProxyChainUpstream, startSilentUpstream, startSocksUpstream } from './upstream-proxies';

const MiB = 1024 * 1024;
const POLL_MS = 150;
let server: TestServer;
let admin: HttpClient;
let target: Awaited<ReturnType<typeof startTarget>>;
let user: ProxyUser;
const gateways: Gateway[] = [];
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  // The server builds its location index on first use: not inside a tunnel's 15 s handshake deadline.
  loadLocations();
  server = await startTestServer();
  admin = await adminClient(server);
  target = await startTarget();
  user = await userWithCredits(server, 200n * BigInt(MiB));
});
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close();
  for (const c of cleanups.splice(0)) await c();
  // Each test starts without pools.
  const r = await admin.get<{ upstreams: { id: string }[] }>('/admin/upstreams');
  for (const u of r.body.upstreams) await admin.request('DELETE', `/admin/upstreams/${u.id}`);
});
afterAll(async () => {
  await target?.close();
  await server?.close();
});

interface Pool {
  id: string;
}

/** A pool added as the admin does: saved disabled, then enabled. */
async function addPool(body: Record<string, unknown>): Promise<Pool> {
  const r = await admin.request<{ upstream: Pool }>('POST', '/admin/upstreams', { host: '127.0.0.1', weight: 1, costPerGbCents: 30, ...body });
  expect(r.status).toBe(201);
  expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
  return r.body.upstream;
}

async function proxyChain(password = 'chain-secret') {
  const up = await startProxyChainUpstream(password);
  cleanups.push(up.close);
  return up;
}

async function socks() {
  const up = await startSocksUpstream();
  cleanups.push(up.close);
  return up;
}

async function gateway(opts: Parameters<typeof startGateway>[1] = {}) {
  const gw = await startGateway(server, { upstreams: { refreshMs: POLL_MS, random: Math.random }, connectTimeoutMs: 1000, ...opts });
  gateways.push(gw);
  return { gw, port: (gw.server.address() as AddressInfo).port };
}

/** One request through a CONNECT tunnel with this username; resolves true when the target answered. */
async function through(port: number, username: string): Promise<boolean> {
  const s = await connectTunnel(port, target.port, username, user.proxyPassword);
  let body = '';
  s.on('data', (d: Buffer) => (body += d.toString('latin1')));
  await exchangeUntilClosed(s, 'GET /hello HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n');
  return body.includes('hello from target');
}

const waitFor = async (check: () => boolean | Promise<boolean>, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
};

let tokenCounter = 0;
const token = () => `T${(tokenCounter++).toString(36).toUpperCase().padStart(7, '0')}`;

describe('routing over upstream pools', () => {
  it('routes by country, fills the template from the username as written, and attributes usage to the pool', async () => {
    const chain = await proxyChain();
    const sock = await socks();
    const a = await addPool({
      name: 'US pool',
      protocol: 'http',
      port: chain.port,
      usernameTemplate: 'cust-{country}-{state}-{city}-sess-{session}-ttl-{minutes}',
      password: 'chain-secret',
      countries: ['US'],
    });
    const b = await addPool({
      name: 'DE pool',
      protocol: 'socks5',
      port: sock.port,
      usernameTemplate: 'u-{country}-{session}-{minutes}',
      password: 'pw',
      countries: ['DE'],
    });
    const { gw, port } = await gateway();
    const before = await hourlyUsage(server, user.userId);

    const us = user.username({ country: 'US', state: 'CA', city: 'LOSANGELES' }, 45, 'TOKENAAA');
    const r1 = await curl(['-p', '-x', `http://127.0.0.1:${port}`, '-U', `${us}:${user.proxyPassword}`, `${target.url}/download?bytes=300000`]);
    expect(r1.status).toBe(200);
    expect(chain.seen.map((s) => s.username)).toEqual(['cust-US-CA-LOSANGELES-sess-TOKENAAA-ttl-45']);
    const de = user.username({ country: 'DE' }, 10, 'TOKENBBB');
    const r2 = await curl(['-x', `socks5h://${de}:${user.proxyPassword}@127.0.0.1:${port}`, `${target.url}/download?bytes=100000`]);
    expect(r2.status).toBe(200);
    expect(sock.requests.map((q) => q.credentials)).toEqual(['u-DE-TOKENBBB-10:pw']);

    // No pool serves FR and there is no default upstream: not offered, refused at login, never sent out directly.
    await expect(through(port, user.username({ country: 'FR' }))).rejects.toThrow(/^HTTP\/1\.1 407 [^]*Location not offered: FR/);
    expect(chain.seen).toHaveLength(1);
    expect(sock.requests).toHaveLength(1);

    await gw.flush();
    const after = await hourlyUsage(server, user.userId);
    const list = (
      await admin.get<{ upstreams: Array<{ id: string; usage: { bytes: number; costCents: number; revenueCents: number; marginCents: number } }> }>(
        '/admin/upstreams',
      )
    ).body.upstreams;
    const usageA = list.find((u) => u.id === a.id)!.usage;
    const usageB = list.find((u) => u.id === b.id)!.usage;
    expect(usageA.bytes).toBeGreaterThan(300_000);
    expect(usageB.bytes).toBeGreaterThan(100_000);
    expect(usageA.bytes).toBeLessThan(300_000 + 4096);
    expect(usageB.bytes).toBeLessThan(100_000 + 4096);
    // Everything the user was billed for was carried by one of the two pools.
    expect(usageA.bytes + usageB.bytes).toBe(after.up + after.down - before.up - before.down);
    await expectLedgerHolds(server, user.userId);
  });

  it('picks pools by weight, and a sticky session keeps its pool for its duration', async () => {
    const chain = await proxyChain();
    const sock = await socks();
    await addPool({ name: 'heavy', protocol: 'http', port: chain.port, password: 'chain-secret', weight: 3, countries: null });
    await addPool({ name: 'light', protocol: 'socks5', port: sock.port, password: 'pw', weight: 1, countries: null });
    const { port } = await gateway();
    const N = 80;
    for (let i = 0; i < N; i++) expect(await through(port, user.username({ country: 'GB' }, 60, token()))).toBe(true);
    const heavy = chain.seen.length;
    expect(heavy + sock.requests.length).toBe(N);
    // 3:1 means 60 of 80 expected; a fair coin would be 40.
    expect(heavy).toBeGreaterThanOrEqual(46);
    expect(heavy).toBeLessThanOrEqual(74);

    // One token: every tunnel of its session leaves through the same pool.
    for (let round = 0; round < 4; round++) {
      const t = token();
      const c0 = chain.seen.length;
      const s0 = sock.requests.length;
      for (let i = 0; i < 6; i++) expect(await through(port, user.username({ country: 'GB' }, 60, t))).toBe(true);
      const viaChain = chain.seen.length - c0;
      const viaSocks = sock.requests.length - s0;
      expect([viaChain, viaSocks].sort()).toEqual([0, 6]);
    }
  });

  it('passes over a pool stopped mid-test (and one that never answers) without the client seeing an error, marks it down and retries it after a backoff', async () => {
    const chain = await proxyChain();
    const sock = await socks();
    const silent = await startSilentUpstream();
    cleanups.push(silent.close);
    const a = await addPool({ name: 'chain', protocol: 'http', port: chain.port, password: 'chain-secret', countries: ['US'] });
    const b = await addPool({ name: 'socks', protocol: 'socks5', port: sock.port, password: 'pw', countries: ['US'] });
    // Rotating lines (a sticky one goes where its session id hashes), and their weighted pick made
    // predictable: 0 takes the first pool listed, 0.999 the last.
    let pick = 0;
    const { gw, port } = await gateway({ connectTimeoutMs: 300, upstreams: { refreshMs: POLL_MS, random: () => pick, backoffMinMs: 500 } });

    // A line on the proxy-chain pool...
    const pinned = token();
    expect(await through(port, user.username({ country: 'US' }, 0, pinned))).toBe(true);
    expect(chain.seen).toHaveLength(1);
    // ...keeps working, through the SOCKS5 pool, once proxy-chain is stopped.
    await chain.close();
    expect(await through(port, user.username({ country: 'US' }, 0, pinned))).toBe(true);
    expect(sock.requests).toHaveLength(1);
    expect(gw.upstreams.isDown(a.id)).toBe(false);
    // Two more failures in a row: down, and no longer tried.
    for (let i = 0; i < 2; i++) expect(await through(port, user.username({ country: 'US' }, 0, token()))).toBe(true);
    expect(gw.upstreams.isDown(a.id)).toBe(true);
    expect(gw.upstreams.errors).toBe(3);
    expect(await through(port, user.username({ country: 'US' }, 0, token()))).toBe(true);
    expect(gw.upstreams.errors).toBe(3);
    expect(sock.requests).toHaveLength(4);
    expect(gw.upstreams.isDown(b.id)).toBe(false);

    // A pool that accepts and never answers: each timeout moves on to the next pool.
    await admin.request('DELETE', `/admin/upstreams/${a.id}`);
    const c = await addPool({ name: 'silent', protocol: 'http', port: silent.port, password: 'pw', countries: null });
    await waitFor(() => gw.upstreams.upstreams.some((u) => u.id === c.id) && gw.upstreams.upstreams.length === 2);
    pick = 0.999;
    for (let i = 0; i < 3; i++) expect(await through(port, user.username({ country: 'US' }, 0, token()))).toBe(true);
    expect(silent.accepted).toBe(3);
    expect(gw.upstreams.isDown(c.id)).toBe(true);
    const started = Date.now();
    expect(await through(port, user.username({ country: 'US' }, 0, token()))).toBe(true);
    expect(Date.now() - started).toBeLessThan(300);
    expect(silent.accepted).toBe(3);
    // After its backoff it is tried again: one more timeout marks it down again.
    await waitFor(() => !gw.upstreams.isDown(c.id));
    expect(await through(port, user.username({ country: 'US' }, 0, token()))).toBe(true);
    expect(silent.accepted).toBe(4);
    expect(gw.upstreams.isDown(c.id)).toBe(true);
    expect(sock.requests).toHaveLength(9);

    await gw.heartbeat.beat();
    const fleet = await admin.get<{ gateways: Array<{ id: string; upstreamErrors: number }> }>('/admin/gateways');
    expect(fleet.body.gateways.find((g) => g.id === gw.meter.opts.gatewayId)!.upstreamErrors).toBe(7);
  });

  it("picks up the admin's changes without a restart", async () => {
    const chain = await proxyChain();
    const sock = await socks();
    const a = await addPool({ name: 'chain', protocol: 'http', port: chain.port, password: 'chain-secret', countries: ['US'] });
    const { gw, port } = await gateway();
    expect(await through(port, user.username({ country: 'US' }, 60, token()))).toBe(true);
    expect(chain.seen).toHaveLength(1);

    const b = await addPool({ name: 'socks', protocol: 'socks5', port: sock.port, password: 'pw', countries: ['US'] });
    await admin.request('PATCH', `/admin/upstreams/${a.id}`, { enabled: false });
    await waitFor(() => gw.upstreams.upstreams.length === 1 && gw.upstreams.upstreams[0]!.id === b.id);
    for (let i = 0; i < 3; i++) expect(await through(port, user.username({ country: 'US' }, 60, token()))).toBe(true);
    expect(chain.seen).toHaveLength(1);
    expect(sock.requests).toHaveLength(3);

    // A changed country list routes by it at once.
    await admin.request('PATCH', `/admin/upstreams/${b.id}`, { countries: ['DE'] });
    await waitFor(() => gw.upstreams.upstreams[0]?.countries?.[0] === 'DE');
    await expect(through(port, user.username({ country: 'US' }, 60, token()))).rejects.toThrow(/^HTTP\/1\.1 502/);
    expect(await through(port, user.username({ country: 'DE' }, 60, token()))).toBe(true);
  });

  it('uses GATEWAY_UPSTREAM_URL where no pool serves, and direct egress with neither', async () => {
    // The servers know the gateways have a default upstream (GATEWAY_UPSTREAM_URL set on them too):
    // every catalogue country is offered, whatever the pools serve.
    server.config.defaultUpstream = true;
    cleanups.push(() => (server.config.defaultUpstream = false));
    const chain = await proxyChain('default-secret');
    const sock = await socks();
    await addPool({ name: 'DE only', protocol: 'socks5', port: sock.port, password: 'pw', countries: ['DE'] });
    const { gw, port } = await gateway({ upstreamUrl: `http://dflt-{country}-{session}:default-secret@127.0.0.1:${chain.port}` });
    expect(await through(port, user.username({ country: 'US' }, 60, 'DFLTTOK1'))).toBe(true);
    expect(chain.seen.map((s) => s.username)).toEqual([expect.stringMatching(new RegExp(`^dflt-US-${user.proxyUserId}dflttok1[0-9a-z]+$`))]);
    expect(await through(port, user.username({ country: 'DE' }, 60, token()))).toBe(true);
    expect(sock.requests).toHaveLength(1);
    await gw.flush();

    // No pool, no default upstream: direct.
    const r = await admin.get<{ upstreams: { id: string }[] }>('/admin/upstreams');
    for (const u of r.body.upstreams) await admin.request('DELETE', `/admin/upstreams/${u.id}`);
    const direct = await gateway();
    await waitFor(() => direct.gw.upstreams.upstreams.length === 0);
    const closed = target.closed.length;
    expect(await through(direct.port, user.username({ country: 'FR' }, 60, token()))).toBe(true);
    await target.closedCount(closed + 1);
    expect(chain.seen).toHaveLength(1);
    expect(sock.requests).toHaveLength(1);
  });
});

describe('the order of pools for a line', () => {
  const pool = (id: string, usernameTemplate: string, extra: Partial<Upstream> = {}): Upstream => ({
    id,
    protocol: 'http',
    host: '127.0.0.1',
    port: 1,
    usernameTemplate,
    password: '',
    countries: null,
    weight: 1,
    ...extra,
  });

  it('prefers pools carrying the city, then the state; a sticky line keeps its pool on every gateway and moves on only while it is down', () => {
    const list = [
      pool('plain', 'u-{country}-{session}'),
      pool('state', 'u-{country}-{state|name|lower}'),
      pool('city', 'u-{country}', { passwordTemplate: '{password}_city-{city}' }),
      pool('other-country', 'u-{country}-{city}', { countries: ['DE'] }),
    ];
    expect(templateUses(list[2]!, 'city')).toBe(true);
    expect(templateUses(pool('x', '{cityname}'), 'city')).toBe(false);
    const a = new UpstreamPool({ random: () => 0.5 });
    const b = new UpstreamPool({ random: () => 0.1 });
    a.set(list);
    b.set(list);
    const ids = (p: UpstreamPool, loc: { country: string; state?: string; city?: string }, sid: string) => p.route(loc, sid)!.map((u) => u.id);
    expect(ids(a, { country: 'US', state: 'CA', city: 'LOSANGELES' }, 'k3x9a0qz')).toEqual(['city', 'state', 'plain']);
    expect(ids(a, { country: 'US', state: 'CA' }, 'k3x9a0qz')[0]).toBe('state');
    // A country line: any pool, the same order on two gateways (whatever their random draws).
    for (const sid of ['k3x9a0qz', '00000001', 'zzzzzzzz', 'abc12345']) expect(ids(a, { country: 'US' }, sid)).toEqual(ids(b, { country: 'US' }, sid));
    // Sids spread over the pools, each staying on its own.
    const firsts = new Set<string>();
    for (let i = 0; i < 60; i++) firsts.add(ids(a, { country: 'US' }, `s${String(i).padStart(7, '0')}`)[0]!);
    expect(firsts).toEqual(new Set(['plain', 'state', 'city']));
    // Down: the next in the same order, the down one last; back up, the first again.
    const order = ids(a, { country: 'US' }, 'k3x9a0qz');
    for (let i = 0; i < 3; i++) a.failed(order[0]!);
    expect(ids(a, { country: 'US' }, 'k3x9a0qz')).toEqual([...order.slice(1), order[0]]);
    a.succeeded(order[0]!);
    expect(ids(a, { country: 'US' }, 'k3x9a0qz')).toEqual(order);
  });
});
