/**
 * Entry ports through the real gateway and real sockets on loopback: a password-less address
 * connecting without credentials to an entry port is the proxy account, location and session its
 * owner gave that port (over HTTP forward, CONNECT and SOCKS5), through the pool serving that
 * location (a fake FR pool and a fake DE pool); sticky per address and port or rotating; billed and
 * capped as that account; the main port keeps password-less access as it was; an entry port without
 * a profile is refused (407, SOCKS5 "no acceptable methods"); the same port from another user's
 * password-less address is that user's. Bad profiles are 4xx naming the field, nothing saved.
 */
import type { AddressInfo } from 'node:net';
import { loadLocations } from '@proxyhub/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../src/gateway';
import {
  adminClient,
  balances,
  curl,
  expectLedgerHolds,
  freePortRange,
  rawExchange,
  SMALL_LEASES,
  startGateway,
  startTarget,
  startTestServer,
  userWithCredits,
  type ProxyUser,
  type Target,
  type TestServer,
} from './helpers';
import { startProxyChainUpstream, startSocksUpstream } from './upstream-proxies';

const MiB = 1024 * 1024;
let server: TestServer;
let gateway: Gateway;
let target: Target;
let ports: { from: number; to: number };
let mainPort: number;
let fr: Awaited<ReturnType<typeof startProxyChainUpstream>>;
let de: Awaited<ReturnType<typeof startSocksUpstream>>;
let u: ProxyUser;
let b: Account;
let c: Account;
/** The entry ports of this file: B's (FR, sticky), C's (DE, rotating), one without a profile. */
let portB: number;
let portC: number;
let portNone: number;

interface Account {
  proxyUserId: string;
  usedBytes: string;
  capBytes: string | null;
}

beforeAll(async () => {
  loadLocations();
  ports = await freePortRange(3);
  [portB, portC, portNone] = [ports.from, ports.from + 1, ports.from + 2];
  server = await startTestServer({ gateway: { publicHost: null, publicPort: 3001, entryPorts: ports } });
  target = await startTarget();
  fr = await startProxyChainUpstream('fr-secret');
  de = await startSocksUpstream();
  gateway = await startGateway(server, { entryPorts: ports, meter: { ...SMALL_LEASES, reportIntervalMs: 250 }, upstreams: { refreshMs: 150 } });
  mainPort = (gateway.server.address() as AddressInfo).port;
  u = await userWithCredits(server, 1n << 30n);
  b = await subAccount('B', { capGB: 0.01 });
  c = await subAccount('C', {});
});
afterAll(async () => {
  await gateway?.close();
  await target?.close();
  await fr?.close();
  de?.close();
  await server?.close();
});

/** A fake FR pool and a fake DE pool, enabled; resolves once the gateway routes through them. */
async function addPools(): Promise<void> {
  const admin = await adminClient(server);
  for (const body of [
    {
      name: 'FR pool',
      protocol: 'http',
      port: fr.port,
      usernameTemplate: 'fr-{country}-sess-{session}-ttl-{minutes}',
      password: 'fr-secret',
      countries: ['FR'],
    },
    { name: 'DE pool', protocol: 'socks5', port: de.port, usernameTemplate: 'de-{country}', password: 'de-secret', countries: ['DE'] },
  ]) {
    const r = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', { host: '127.0.0.1', weight: 1, costPerGbCents: 30, ...body });
    expect(r.status).toBe(201);
    expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
  }
  for (let i = 0; fr.seen.length === 0; i += 1) {
    if (i > 100) throw new Error('the gateway did not take the pools');
    await viaHttp(portB);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function subAccount(name: string, body: Record<string, unknown>): Promise<Account> {
  const r = await u.client.post<{ account: Account }>('/api/proxy-accounts', { name, ...body });
  expect(r.status).toBe(201);
  return r.body.account;
}

async function accountNow(proxyUserId: string): Promise<Account> {
  await gateway.flush();
  return (await u.client.get<{ accounts: Account[] }>('/api/proxy-accounts')).body.accounts.find((a) => a.proxyUserId === proxyUserId)!;
}

const profiles = () => [
  { port: portB, proxyAccountId: b.proxyUserId, location: 'FR', durationMinutes: 30 },
  { port: portC, proxyAccountId: c.proxyUserId, location: 'de', durationMinutes: 0 },
];

/** Through `port` without credentials, by each protocol. */
const viaHttp = (port: number, path = '/hello', from = '127.0.0.1') => curl(['--interface', from, '-x', `http://127.0.0.1:${port}`, `${target.url}${path}`]);
const viaConnect = (port: number, path = '/hello') => curl(['-p', '-x', `http://127.0.0.1:${port}`, `${target.url}${path}`]);
const viaSocks = (port: number, path = '/hello', from = '127.0.0.1') =>
  curl(['--interface', from, '-x', `socks5h://127.0.0.1:${port}`, `${target.url}${path}`]);

describe('entry ports for password-less addresses', () => {
  it('the profiles are saved and answered; the entry ports are in GET', async () => {
    const put = await u.client.request<{ entries: unknown[] }>('PUT', '/api/ip-allowlist', {
      entries: [{ entry: '127.0.0.1', ports: profiles() }],
      passwordless: true,
    });
    expect(put.status).toBe(200);
    const saved = [{ entry: '127.0.0.1', ports: [profiles()[0], { ...profiles()[1], location: 'DE' }] }];
    expect(put.body.entries).toEqual(saved);
    const get = await u.client.get<{ entries: unknown[]; entryPorts: unknown }>('/api/ip-allowlist');
    expect(get.body.entries).toEqual(saved);
    expect(get.body.entryPorts).toEqual(ports);
  });

  it('the main port keeps password-less access as it was: the main account', async () => {
    const main = async () =>
      (await u.client.get<{ accounts: Array<Account & { kind: string }> }>('/api/proxy-accounts')).body.accounts.find((a) => a.kind === 'main')!;
    await gateway.flush();
    const before = BigInt((await main()).usedBytes);
    const r = await curl(['-x', `http://127.0.0.1:${mainPort}`, `${target.url}/hello`]);
    // Direct egress for "any location" when no pool takes it, or a pool: either way the main account pays.
    console.log('main port status', r.status);
    expect([200, 502]).toContain(r.status);
    if (r.status === 200) {
      await gateway.flush();
      expect(BigInt((await main()).usedBytes)).toBeGreaterThan(before);
    }
  });

  it('B’s port leaves through the FR pool as B, sticky per address and port (HTTP forward, CONNECT, SOCKS5)', async () => {
    await addPools();
    const before = fr.seen.length;
    for (const via of [viaHttp, viaConnect, viaSocks]) {
      const r = await via(portB);
      expect(r.status).toBe(200);
      expect(r.stdout).toContain('hello from target');
    }
    const names = fr.seen.slice(before).map((s) => s.username);
    expect(names).toHaveLength(3);
    expect(names[0]).toMatch(/^fr-FR-sess-\w+-ttl-30$/);
    // One session for the address and port: the same upstream session every time.
    expect(new Set(names).size).toBe(1);
    const now = await accountNow(b.proxyUserId);
    expect(BigInt(now.usedBytes)).toBeGreaterThan(0n);
  });

  it('C’s port leaves through the DE pool as C, rotating (HTTP forward, CONNECT, SOCKS5)', async () => {
    const before = de.requests.length;
    const bBefore = (await accountNow(b.proxyUserId)).usedBytes;
    for (const via of [viaHttp, viaConnect, viaSocks]) expect((await via(portC)).status).toBe(200);
    expect(de.requests.slice(before).map((q) => q.credentials)).toEqual(['de-DE:de-secret', 'de-DE:de-secret', 'de-DE:de-secret']);
    expect(BigInt((await accountNow(c.proxyUserId)).usedBytes)).toBeGreaterThan(0n);
    expect((await accountNow(b.proxyUserId)).usedBytes).toBe(bBefore);
  });

  it('an entry port without a profile is refused: 407, SOCKS5 "no acceptable methods"; another address is refused on every entry port', async () => {
    const http = await viaHttp(portNone);
    expect(http.status).toBe(407);
    expect(http.stdout).toContain(`127.0.0.1 has no profile for port ${portNone}`);
    expect((await viaConnect(portNone)).stderr).toContain('CONNECT tunnel failed, response 407');
    const { data } = await rawExchange(portNone, [Buffer.from([5, 1, 0])]);
    expect([...data]).toEqual([5, 0xff]);
    const elsewhere = await viaHttp(portB, '/hello', '127.0.0.2');
    expect(elsewhere.status, elsewhere.stderr).toBe(407);
    expect((await viaSocks(portB, '/hello', '127.0.0.2')).code).not.toBe(0);
  });

  it('ports need not be unique across users: the same port from another user’s password-less address is that user’s profile', async () => {
    const other = await userWithCredits(server, 1n << 30n);
    const put = await other.client.request('PUT', '/api/ip-allowlist', {
      entries: [{ entry: '127.0.0.2', ports: [{ port: portB, location: 'DE', durationMinutes: 0 }] }],
      passwordless: true,
    });
    expect(put.status).toBe(200);
    const before = de.requests.length;
    const otherBefore = await balances(other);
    const bBefore = (await accountNow(b.proxyUserId)).usedBytes;
    // The gateway's refusal for 127.0.0.2 may be cached for a moment.
    let r = await viaSocks(portB, '/hello', '127.0.0.2');
    for (let i = 0; i < 40 && r.status !== 200; i += 1) {
      await new Promise((res) => setTimeout(res, 100));
      r = await viaSocks(portB, '/hello', '127.0.0.2');
    }
    expect(r.status).toBe(200);
    expect(de.requests.slice(before).map((q) => q.credentials)).toContain('de-DE:de-secret');
    await gateway.flush();
    expect((await balances(other)).usage).toBeGreaterThan(otherBefore.usage);
    expect((await accountNow(b.proxyUserId)).usedBytes).toBe(bBefore);
  });

  it('B’s cap stops B only: its port is refused, C’s goes on', async () => {
    // 0.01 GB cap: a few downloads reach it.
    let refused: Awaited<ReturnType<typeof curl>> | null = null;
    for (let i = 0; i < 20 && !refused; i += 1) {
      const r = await viaConnect(portB, `/download?bytes=${4 * MiB}`);
      if (r.status !== 200) refused = r;
    }
    expect(refused?.stderr).toContain('CONNECT tunnel failed, response 402');
    const http = await viaHttp(portB);
    expect(http.status).toBe(402);
    expect(http.stdout).toContain('Proxy account limit reached');
    expect((await viaSocks(portB)).code).not.toBe(0);
    expect((await viaSocks(portC, `/download?bytes=${MiB}`)).status).toBe(200);
    const capped = await accountNow(b.proxyUserId);
    expect(BigInt(capped.usedBytes)).toBeLessThanOrEqual(BigInt(capped.capBytes!) + BigInt(MiB));
    await expectLedgerHolds(server, u.userId);
  });

  it('bad profiles are 4xx naming the field, and nothing is saved', async () => {
    const put = (ports: unknown[]) => u.client.request<{ error: string }>('PUT', '/api/ip-allowlist', { entries: [{ entry: '127.0.0.1', ports }] });
    const outside = await put([{ port: ports.to + 1, location: 'FR', durationMinutes: 0 }]);
    expect(outside.status).toBe(400);
    expect(outside.body.error).toBe(`Port ${ports.to + 1} is not an entry port: the entry ports are ${ports.from}-${ports.to}`);
    const other = await userWithCredits(server, 0n);
    const theirs = await put([{ port: portB, proxyAccountId: other.proxyUserId, location: 'FR', durationMinutes: 0 }]);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toBe(`Proxy account ${other.proxyUserId} is not one of your proxy accounts`);
    const place = await put([{ port: portB, location: 'ZZ', durationMinutes: 0 }]);
    expect(place.status).toBe(400);
    expect(place.body.error).toBe('Location "ZZ" is not known: use codes such as FR or US-CA-LOSANGELES');
    const twice = await put([
      { port: portB, location: 'FR', durationMinutes: 0 },
      { port: portB, location: 'DE', durationMinutes: 0 },
    ]);
    expect(twice.status).toBe(400);
    expect(twice.body.error).toBe(`Port ${portB} is listed twice for one entry`);
    const duration = await put([{ port: portB, location: 'FR', durationMinutes: -1 }]);
    expect(duration.status).toBe(400);
    expect(duration.body.error).toBe('Session duration must be 0 (rotating) or 1 to 10080 minutes');
    const get = await u.client.get<{ entries: unknown[] }>('/api/ip-allowlist');
    expect(get.body.entries).toEqual([{ entry: '127.0.0.1', ports: [profiles()[0], { ...profiles()[1], location: 'DE' }] }]);
  });
});
