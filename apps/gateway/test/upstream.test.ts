import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { Server as ProxyChainServer } from 'proxy-chain';
import { loadLocations } from '@proxyhub/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillTemplate } from '../src/egress';
import { StickySessions } from '../src/sessions';
import { basic, curl, expectLedgerHolds, hourlyUsage, startGateway, startStack, startTarget, userWithCredits, type Stack } from './helpers';
import { startSocksUpstream } from './upstream-proxies';

const MiB = 1024 * 1024;
let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;
let upstream: ProxyChainServer;
const seen: Array<{ username: string; password: string; hostname: string; port: number }> = [];

beforeAll(async () => {
  // The server builds its location index on first use: not inside a tunnel's 15 s handshake deadline.
  loadLocations();
  stack = await startStack();
  target = await startTarget();
  // A local upstream proxy (proxy-chain) standing in for a residential provider: it records the
  // credentials each tunnel arrives with.
  upstream = new ProxyChainServer({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ username, password, hostname, port }) => {
      seen.push({ username, password, hostname, port });
      return { requestAuthentication: password !== 'upstream-secret' };
    },
  });
  await upstream.listen();
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
  await upstream?.close(true);
});

describe('egress through an upstream proxy', () => {
  it('passes location and sticky session in the templated username, for HTTP, CONNECT and SOCKS5', async () => {
    const gw = await startGateway(stack.server, {
      upstreamUrl: `http://cust-{country}-{state}-{city}-sess-{session}-ttl-{minutes}:upstream-secret@127.0.0.1:${upstream.port}`,
    });
    const port = (gw.server.address() as AddressInfo).port;
    try {
      const u = await userWithCredits(stack.server, 100n * BigInt(MiB));
      const loc = { country: 'US', state: 'CA', city: 'LOSANGELES' };
      const a = u.username(loc, 45, 'TOKENAAA');
      const b = u.username(loc, 45, 'TOKENBBB');
      const proxy = `http://127.0.0.1:${port}`;
      for (const args of [
        ['-x', proxy, '-U', `${a}:${u.proxyPassword}`],
        ['-p', '-x', proxy, '-U', `${a}:${u.proxyPassword}`],
        ['-x', `socks5h://${a}:${u.proxyPassword}@127.0.0.1:${port}`],
        ['-p', '-x', proxy, '-U', `${b}:${u.proxyPassword}`],
      ]) {
        const r = await curl([...args, `${target.url}/hello`]);
        expect(r).toMatchObject({ status: 200, stdout: 'hello from target\n' });
      }
      expect(seen).toHaveLength(4);
      for (const s of seen) expect(s).toMatchObject({ password: 'upstream-secret', hostname: '127.0.0.1', port: target.port });
      const names = seen.map((s) => s.username);
      const re = new RegExp(`^cust-US-CA-LOSANGELES-sess-(${u.proxyUserId}token(aaa|bbb)[0-9a-z]+)-ttl-45$`);
      for (const n of names) expect(n).toMatch(re);
      // The same token keeps its session over all three protocols; another token gets its own.
      expect(new Set(names.slice(0, 3)).size).toBe(1);
      expect(names[3]).not.toBe(names[0]);
      expect(names[0]).toContain('tokenaaa');
      expect(names[3]).toContain('tokenbbb');

      await gw.flush();
      const usage = await hourlyUsage(stack.server, u.userId);
      expect(usage.sessions).toBe(4);
      expect(usage.down).toBeGreaterThan(0);
      await expectLedgerHolds(stack.server, u.userId);
    } finally {
      await gw.close();
    }
  });

  it('speaks SOCKS5 to a socks5:// upstream, with the templated username', async () => {
    const socksUp = await startSocksUpstream();
    const gw = await startGateway(stack.server, { upstreamUrl: `socks5://u-{country}-{session}:pw@127.0.0.1:${socksUp.port}` });
    try {
      const u = await userWithCredits(stack.server, 10n * BigInt(MiB));
      const r = await curl([
        '-p',
        '-x',
        `http://127.0.0.1:${(gw.server.address() as AddressInfo).port}`,
        '-U',
        `${u.username({ country: 'DE' }, 10, 'STICKY01')}:${u.proxyPassword}`,
        `${target.url}/hello`,
      ]);
      expect(r).toMatchObject({ status: 200, stdout: 'hello from target\n' });
      expect(socksUp.requests).toHaveLength(1);
      expect(socksUp.requests[0]!.credentials).toMatch(new RegExp(`^u-DE-${u.proxyUserId}sticky01[0-9a-z]+:pw$`));
      expect(socksUp.requests[0]).toMatchObject({ atyp: 1, host: '127.0.0.1', port: target.port });
    } finally {
      await gw.close();
      socksUp.close();
    }
  });

  it('sends an IPv6 literal target to a SOCKS5 upstream as an IPv6 address (ATYP 4), not as a name', async () => {
    // The upstream stands in for the whole internet: whatever address it is asked for, it reaches our target.
    const socksUp = await startSocksUpstream(() => ({ host: '127.0.0.1', port: target.port }));
    const gw = await startGateway(stack.server, { upstreamUrl: `socks5://u-{country}:pw@127.0.0.1:${socksUp.port}` });
    const port = (gw.server.address() as AddressInfo).port;
    try {
      const u = await userWithCredits(stack.server, 10n * BigInt(MiB));
      const viaConnect = await curl([
        '-g',
        '-p',
        '-x',
        `http://127.0.0.1:${port}`,
        '-U',
        `${u.username()}:${u.proxyPassword}`,
        `http://[2606:4700:4700::1111]:8443/hello`,
      ]);
      expect(viaConnect).toMatchObject({ status: 200, stdout: 'hello from target\n' });
      const viaSocks = await curl([
        '-g',
        '-x',
        `socks5://${u.username()}:${u.proxyPassword}@127.0.0.1:${port}`,
        `http://[2a00:1450:0:0:0:0:0:200e]:8080/hello`,
      ]);
      expect(viaSocks).toMatchObject({ status: 200, stdout: 'hello from target\n' });
      expect(socksUp.requests.map(({ atyp, host, port }) => ({ atyp, host, port }))).toEqual([
        { atyp: 4, host: '2606:4700:4700::1111', port: 8443 },
        { atyp: 4, host: '2a00:1450::200e', port: 8080 },
      ]);
    } finally {
      await gw.close();
      socksUp.close();
    }
  });

  it('relays what a SOCKS5 upstream sends along with its reply', async () => {
    const banner = Buffer.concat([Buffer.from('220 banner\r\n'), Buffer.alloc(100_000, 7)]);
    const socksUp = await startSocksUpstream(undefined, banner);
    const gw = await startGateway(stack.server, { upstreamUrl: `socks5://u:pw@127.0.0.1:${socksUp.port}` });
    try {
      const u = await userWithCredits(stack.server, 10n * BigInt(MiB));
      const s = connect({ host: '127.0.0.1', port: (gw.server.address() as AddressInfo).port });
      s.write(`CONNECT 127.0.0.1:25 HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`);
      const got: Buffer[] = [];
      s.on('data', (d: Buffer) => got.push(d));
      await once(s, 'close');
      const all = Buffer.concat(got);
      const head = all.indexOf('\r\n\r\n') + 4;
      expect(all.subarray(0, head).toString('latin1')).toMatch(/^HTTP\/1\.1 200 /);
      expect(all.subarray(head).equals(banner)).toBe(true);
    } finally {
      await gw.close();
      socksUp.close();
    }
  });

  it('fills every template field and rotates the session after its duration', () => {
    const req = { host: 'x', port: 1, location: { country: 'GB' }, session: 's1', sid: '', durationMinutes: 5 };
    expect(fillTemplate('c={country},s={state},ci={city},ss={session},m={minutes}', req)).toBe('c=GB,s=,ci=,ss=s1,m=5');
    const sticky = new StickySessions('fleet-secret');
    const t0 = 1_800_000_000_000;
    const first = sticky.session('abcdef1234', 'TOKEN123', 5, t0);
    expect(first.sid).toMatch(/^[a-z0-9]{8}$/);
    expect(first.endsAt).toBeGreaterThan(t0);
    expect(first.endsAt).toBeLessThanOrEqual(t0 + 5 * 60_000);
    // The same period: the same ids; from the period's end, new ones for the next 5 minutes.
    expect(sticky.session('abcdef1234', 'TOKEN123', 5, first.endsAt - 1)).toMatchObject({ sid: first.sid, id: first.id });
    const next = sticky.session('abcdef1234', 'TOKEN123', 5, first.endsAt);
    expect(next.sid).not.toBe(first.sid);
    expect(next.id).not.toBe(first.id);
    expect(next.endsAt).toBe(first.endsAt + 5 * 60_000);
    // Another gateway with the same secret agrees; another token, or another secret, does not.
    expect(new StickySessions('fleet-secret').session('abcdef1234', 'TOKEN123', 5, t0)).toEqual(first);
    expect(sticky.session('abcdef1234', 'OTHER123', 5, t0).sid).not.toBe(first.sid);
    expect(new StickySessions('other-secret').session('abcdef1234', 'TOKEN123', 5, t0).sid).not.toBe(first.sid);
    // A rotating line has no session.
    expect(sticky.session('abcdef1234', 'TOKEN123', 0, t0)).toMatchObject({ sid: '', id: '' });
  });

  it('derives distinct sids for distinct lines (no collision among 20,000)', () => {
    const sticky = new StickySessions('fleet-secret');
    const sids = new Set<string>();
    for (let i = 0; i < 20_000; i++) sids.add(sticky.session('abcdef1234', `T${String(i).padStart(7, '0')}`, 60, 1_800_000_000_000).sid);
    expect(sids.size).toBe(20_000);
  });
});
