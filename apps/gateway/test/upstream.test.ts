import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Server as ProxyChainServer } from 'proxy-chain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillTemplate } from '../src/egress';
import { StickySessions } from '../src/sessions';
import { curl, expectLedgerHolds, hourlyUsage, startGateway, startStack, startTarget, userWithCredits, type Stack } from './helpers';

const MiB = 1024 * 1024;
let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;
let upstream: ProxyChainServer;
const seen: Array<{ username: string; password: string; hostname: string; port: number }> = [];

beforeAll(async () => {
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
    // A minimal SOCKS5 upstream: username/password, CONNECT, records the credentials.
    const creds: string[] = [];
    const socksUp = createServer((s: Socket) => {
      s.on('error', () => undefined);
      let stage = 0;
      s.on('data', function onData(d: Buffer) {
        if (stage === 0) {
          s.write(Buffer.from([5, 2]));
          stage = 1;
        } else if (stage === 1) {
          const ulen = d[1]!;
          creds.push(`${d.toString('utf8', 2, 2 + ulen)}:${d.toString('utf8', 3 + ulen, 3 + ulen + d[2 + ulen]!)}`);
          s.write(Buffer.from([1, 0]));
          stage = 2;
        } else {
          s.off('data', onData);
          const port = d.readUInt16BE(d.length - 2);
          const host = d[3] === 1 ? `${d[4]}.${d[5]}.${d[6]}.${d[7]}` : d.toString('latin1', 5, 5 + d[4]!);
          const t = connect({ host, port }, () => {
            s.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
            s.pipe(t).pipe(s);
          });
          t.on('error', () => s.destroy());
        }
      });
    });
    socksUp.listen(0, '127.0.0.1');
    await once(socksUp, 'listening');
    const gw = await startGateway(stack.server, {
      upstreamUrl: `socks5://u-{country}-{session}:pw@127.0.0.1:${(socksUp.address() as AddressInfo).port}`,
    });
    try {
      const u = await userWithCredits(stack.server, 10n * BigInt(MiB));
      const r = await curl(['-p', '-x', `http://127.0.0.1:${(gw.server.address() as AddressInfo).port}`, '-U', `${u.username({ country: 'DE' }, 10, 'STICKY01')}:${u.proxyPassword}`, `${target.url}/hello`]);
      expect(r).toMatchObject({ status: 200, stdout: 'hello from target\n' });
      expect(creds).toHaveLength(1);
      expect(creds[0]).toMatch(new RegExp(`^u-DE-${u.proxyUserId}sticky01[0-9a-z]+:pw$`));
    } finally {
      await gw.close();
      socksUp.close();
    }
  });

  it('fills every template field and rotates the session after its duration', () => {
    const req = { host: 'x', port: 1, location: { country: 'GB' }, session: 's1', durationMinutes: 5 };
    expect(fillTemplate('c={country},s={state},ci={city},ss={session},m={minutes}', req)).toBe('c=GB,s=,ci=,ss=s1,m=5');
    const sticky = new StickySessions();
    const t0 = 1_800_000_000_000;
    const first = sticky.get('abcdef1234', 'TOKEN123', 5, t0);
    expect(sticky.get('abcdef1234', 'TOKEN123', 5, t0 + 4 * 60_000)).toBe(first);
    expect(sticky.get('abcdef1234', 'TOKEN123', 5, t0 + 5 * 60_000 + 1)).not.toBe(first);
    expect(sticky.get('abcdef1234', 'OTHER123', 5, t0)).not.toBe(first);
  });
});
