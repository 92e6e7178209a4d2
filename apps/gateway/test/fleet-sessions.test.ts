/**
 * Sticky sessions across the fleet: two gateway processes (each its own OS process, started from
 * source like `pnpm --filter @proxyhub/gateway exec tsx src/serve.ts`) on one server and one pair
 * of upstream pools. The same line through either gateway reaches the same pool with the same
 * session id; after its duration, both give it a new one; a line with a city goes to the pool whose
 * template carries {city}; a rotating line (duration 0) goes out with no session at all.
 */
import { loadLocations } from '@proxyhub/api';
import type { ProxyLocation } from '@proxyhub/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StickySessions } from '../src/sessions';
import {
  adminClient,
  connectTunnel,
  exchangeUntilClosed,
  INTERNAL_KEY,
  startTarget,
  startTestServer,
  userWithCredits,
  type ProxyUser,
  type TestServer,
} from './helpers';
import { startGatewayProcess as spawnGateway, stopGatewayProcess, type GatewayProcess } from './gateway-processes';
import { startProxyChainUpstream, startSocksUpstream } from './upstream-proxies';

const MiB = 1024 * 1024;
let server: TestServer;
let target: Awaited<ReturnType<typeof startTarget>>;
let chain: Awaited<ReturnType<typeof startProxyChainUpstream>>;
let sock: Awaited<ReturnType<typeof startSocksUpstream>>;
let user: ProxyUser;
const gateways: GatewayProcess[] = [];

/** A gateway process from source against a test server (the first one unless named); stopped after all. */
async function startGatewayProcess(name: string, on: TestServer = server, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const gw = await spawnGateway(name, on, env);
  gateways.push(gw);
  return gw;
}

/** Two pools serving every country on `on`; only the first one's template carries {city}. */
async function addPools(on: TestServer): Promise<void> {
  const admin = await adminClient(on);
  for (const body of [
    { name: 'city pool', protocol: 'http', port: chain.port, usernameTemplate: 'a-{country}-{city}-{session}-{sid}', password: 'pw' },
    { name: 'country pool', protocol: 'socks5', port: sock.port, usernameTemplate: 'b-{country}-{session}-{sid}', password: 'pw' },
  ]) {
    const r = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', { host: '127.0.0.1', countries: null, weight: 1, ...body });
    expect(r.status).toBe(201);
    // Saved disabled, as every new upstream is: enabled as the admin would after a Test.
    expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
  }
}

beforeAll(async () => {
  // The server builds its location index on first use: not inside a tunnel's 15 s handshake deadline.
  loadLocations();
  server = await startTestServer();
  target = await startTarget();
  user = await userWithCredits(server, 100n * BigInt(MiB));
  chain = await startProxyChainUpstream('pw');
  sock = await startSocksUpstream();
  await addPools(server);
  // The gateways read the pools when they start.
  await Promise.all([startGatewayProcess('gw-one'), startGatewayProcess('gw-two')]);
}, 180_000);

afterAll(async () => {
  for (const gw of gateways) await stopGatewayProcess(gw);
  await chain?.close();
  sock?.close();
  await target?.close();
  await server?.close();
});

/** One request through gateway `gw` with this line (of `user` unless another owner is named). */
async function through(gw: { port: number }, username: string, owner: ProxyUser = user): Promise<void> {
  const s = await connectTunnel(gw.port, target.port, username, owner.proxyPassword);
  let body = '';
  s.on('data', (d: Buffer) => (body += d.toString('latin1')));
  await exchangeUntilClosed(s, 'GET /hello HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n');
  expect(body).toContain('hello from target');
}

/** Which upstream got the next tunnel, and with what username. */
async function viaGateway(gw: { port: number }, username: string, owner: ProxyUser = user): Promise<{ pool: 'a' | 'b'; name: string }> {
  const c0 = chain.seen.length;
  const s0 = sock.requests.length;
  await through(gw, username, owner);
  if (chain.seen.length > c0) return { pool: 'a', name: chain.seen.at(-1)!.username };
  expect(sock.requests.length).toBe(s0 + 1);
  return { pool: 'b', name: sock.requests.at(-1)!.credentials.replace(/:pw$/, '') };
}

let tokens = 0;
const token = () => `F${(tokens++).toString(36).toUpperCase().padStart(7, '0')}`;
const SID = /^[a-z0-9]{8}$/;

describe('sticky sessions across two gateway processes', () => {
  it('gives a line the same pool and session id on both gateways, and other lines other ids', async () => {
    const [one, two] = gateways as [(typeof gateways)[0], (typeof gateways)[0]];
    const sids = new Set<string>();
    const pools = new Set<string>();
    // Random tokens: eight lines over two pools of equal weight all land on one 1 time in 128 (a CI
    // run saw it), so lines are added until both pools carry some (40 at most: 1 in 2^39).
    let lines = 0;
    for (; lines < 8 || (pools.size < 2 && lines < 40); lines++) {
      const t = token();
      const line = user.username({ country: 'US' }, 60, t);
      const a = await viaGateway(one, line);
      const b = await viaGateway(two, line);
      expect(b).toEqual(a);
      const m = /^([ab])-US--?([A-Z0-9]{8})-([a-z0-9]*)$/.exec(a.name);
      expect(m, a.name).not.toBeNull();
      expect(m![2]).toBe(t);
      expect(m![3]).toMatch(SID);
      sids.add(m![3]!);
      pools.add(a.pool);
      // Again through the first: still the same.
      expect(await viaGateway(one, line)).toEqual(a);
    }
    expect(sids.size).toBe(lines);
    expect(pools.size).toBe(2);
  });

  it('gives a line a new session id on both gateways once its duration is over', async () => {
    const [one, two] = gateways as [(typeof gateways)[0], (typeof gateways)[0]];
    // The gateways derive periods from the shared key: find a 1-minute line whose period ends soon.
    const derive = new StickySessions(INTERNAL_KEY);
    for (let attempt = 0; attempt < 3; attempt++) {
      let t = token();
      while (derive.session(user.proxyUserId, t, 1).endsAt - Date.now() < 8000 || derive.session(user.proxyUserId, t, 1).endsAt - Date.now() > 14_000)
        t = token();
      const endsAt = derive.session(user.proxyUserId, t, 1).endsAt;
      const line = user.username({ country: 'DE' }, 1, t);
      const before = [await viaGateway(one, line), await viaGateway(two, line)];
      // Under load the two requests may straddle the boundary: then try another line.
      if (Date.now() >= endsAt - 200) continue;
      expect(before[1]).toEqual(before[0]);
      await new Promise((r) => setTimeout(r, endsAt - Date.now() + 300));
      const after = [await viaGateway(two, line), await viaGateway(one, line)];
      expect(after[1]).toEqual(after[0]);
      const sidOf = (n: string) => n.split('-').at(-1)!;
      expect(sidOf(after[0]!.name)).toMatch(SID);
      expect(sidOf(after[0]!.name)).not.toBe(sidOf(before[0]!.name));
      return;
    }
    throw new Error('no attempt finished its first requests before the period ended');
  }, 120_000);

  it('sends a line with a city to the pool whose template carries {city}, on both gateways', async () => {
    const [one, two] = gateways as [(typeof gateways)[0], (typeof gateways)[0]];
    const loc: ProxyLocation = { country: 'US', state: 'CA', city: 'LOSANGELES' };
    for (let i = 0; i < 6; i++) {
      const line = user.username(loc, 30, token());
      const a = await viaGateway(one, line);
      expect(a.pool).toBe('a');
      expect(a.name).toMatch(/^a-US-LOSANGELES-[A-Z0-9]{8}-[a-z0-9]{8}$/);
      expect(await viaGateway(two, line)).toEqual(a);
    }
  });

  it('sends a rotating line (duration 0) with no session, through either gateway', async () => {
    const [one, two] = gateways as [(typeof gateways)[0], (typeof gateways)[0]];
    const line = user.username({ country: 'GB' }, 0, token());
    expect(line).toMatch(/_GB_0_[A-Z0-9]{8}$/);
    for (const gw of [one, two, one, two]) {
      const r = await viaGateway(gw, line);
      expect(r.name).toBe(`${r.pool}-GB-${r.pool === 'a' ? '-' : ''}-`);
    }
  });
});

describe('with Redis (sessions are derived from the shared key, not shared through a store: the same as without)', () => {
  let onRedis: TestServer;
  let owner: ProxyUser;
  let pair: GatewayProcess[];
  beforeAll(async () => {
    const redisUrl = 'redis://127.0.0.1:6379';
    onRedis = await startTestServer({ redisUrl, redisKeyPrefix: `fleet-sessions-${process.pid}-${Date.now()}` });
    owner = await userWithCredits(onRedis, 100n * BigInt(MiB));
    await addPools(onRedis);
    pair = await Promise.all([
      startGatewayProcess('gw-redis-one', onRedis, { REDIS_URL: redisUrl }),
      startGatewayProcess('gw-redis-two', onRedis, { REDIS_URL: redisUrl }),
    ]);
  }, 180_000);
  afterAll(async () => {
    // Its gateways stop before its server does.
    for (const gw of pair ?? []) await stopGatewayProcess(gw);
    await onRedis?.close();
  });

  it('gives a line the same pool and session id on both gateways, the one the shared key derives', async () => {
    const [one, two] = pair as [(typeof pair)[0], (typeof pair)[0]];
    const derive = new StickySessions(INTERNAL_KEY);
    for (let i = 0; i < 4; i++) {
      const t = token();
      const line = owner.username({ country: 'US' }, 60, t);
      const a = await viaGateway(one, line, owner);
      expect(await viaGateway(two, line, owner)).toEqual(a);
      expect(a.name.split('-').at(-1)).toBe(derive.session(owner.proxyUserId, t, 60).sid);
    }
  });
});
