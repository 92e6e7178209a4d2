// Failed proxy logins are limited in the gateway: a guessing client is refused without server calls
// (so the server's load stays bounded), and the owner with the right password is never locked out
// by someone else's guessing.
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../src/backend';
import type { Gateway } from '../src/gateway';
import { addressKey, randomSessionToken } from '@proxyhub/core';
import { DEFAULT_LOGIN_LIMITS, LoginLimiter } from '../src/login-limit';
import { basic, expectLedgerHolds, INTERNAL_KEY, startGateway, startStack, startTarget, userWithCredits, type ProxyUser, type Stack } from './helpers';

describe('login limiter', () => {
  it('never lets one address fail more than 50 times in any minute, however it paces its guesses', () => {
    let now = 1_000_000;
    const limiter = new LoginLimiter(DEFAULT_LOGIN_LIMITS, () => now);
    const failures: number[] = [];
    // A guess every 200 ms for ten minutes, from one address, each one wrong.
    for (let i = 0; i < 3000; i++, now += 200) {
      const attempt = limiter.attempt('203.0.113.7', `user${i % 7}`);
      if (!attempt) continue;
      attempt.failed();
      failures.push(now);
    }
    let worst = 0;
    for (let i = 0, j = 0; i < failures.length; i++) {
      while (failures[i]! - failures[j]! >= 60_000) j++;
      worst = Math.max(worst, i - j + 1);
    }
    expect(worst).toBeLessThanOrEqual(50);
    // Still guessing, but limited: far fewer than one per 200 ms got through.
    expect(failures.length).toBeLessThanOrEqual(50 * 6);
    expect(failures.length).toBeGreaterThanOrEqual(50 * 4);
  });

  it('counts logins in flight: 200 at once from one address admit 50', () => {
    const limiter = new LoginLimiter();
    const admitted = Array.from({ length: 200 }, () => limiter.attempt('198.51.100.1', 'someone')).filter((a) => a !== null);
    expect(admitted).toHaveLength(50);
    // Right answers free their place again; wrong ones keep it for the window.
    for (const a of admitted.slice(0, 10)) a.succeeded();
    expect(limiter.attempt('198.51.100.1', 'someone')).not.toBeNull();
  });

  it('only failures count: 200 logins at once with one credential are all admitted, and wrong ones still limit the address', () => {
    const limiter = new LoginLimiter();
    const burst = Array.from({ length: 200 }, () => limiter.attempt('198.51.100.2', 'someone', 'someone\0right'));
    expect(burst.every((a) => a !== null)).toBe(true);
    // Guesses with other passwords meanwhile: each holds a place of its own, 49 beside the burst.
    const guesses = Array.from({ length: 100 }, (_, i) => limiter.attempt('198.51.100.2', 'someone', `someone\0wrong-${i}`)).filter((a) => a !== null);
    expect(guesses).toHaveLength(49);
    for (const a of burst) a!.succeeded();
    for (const a of guesses) a.failed();
    // 49 failures: one more wrong password, then nothing, not even the right one.
    limiter.attempt('198.51.100.2', 'someone', 'someone\0wrong-x')!.failed();
    expect(limiter.attempt('198.51.100.2', 'someone', 'someone\0right')).toBeNull();
  });

  it('keys IPv6 clients by /64 and IPv4-mapped clients as IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:db8:1:2:ffff::9'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
  });
});

/** The server's authorize calls, counted on the way out of the gateway. */
function countingBackend(url: string, delayMs = 0) {
  const inner = createBackend(url, INTERNAL_KEY);
  const calls: number[] = [];
  const backend: Backend = {
    ...inner,
    authorize: async (input) => {
      calls.push(Date.now());
      // A server slow to answer (loaded, far away): every login of a burst is still waiting for it.
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return inner.authorize(input);
    },
  };
  return { backend, calls };
}

/** One CONNECT from `from`; resolves the response's status code (0: none). */
function connectStatus(port: number, target: string, auth: string | null, from = '127.0.0.1'): Promise<number> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port, localAddress: from });
    let head = '';
    s.on('connect', () => s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`));
    s.on('data', (d: Buffer) => {
      head += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (m) {
        s.destroy();
        resolve(Number(m[1]));
      }
    });
    s.on('error', () => undefined);
    s.on('close', () => resolve(0));
  });
}

/** A SOCKS5 greeting and username/password login from `from`; resolves the login reply's status (0 ok). */
function socksLogin(port: number, username: string, password: string, from = '127.0.0.1'): Promise<number> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port, localAddress: from });
    const u = Buffer.from(username);
    const p = Buffer.from(password);
    let buf = Buffer.alloc(0);
    s.on('connect', () => s.write(Buffer.concat([Buffer.from([5, 1, 2, 1, u.length]), u, Buffer.from([p.length]), p])));
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 4) {
        s.destroy();
        resolve(buf[3]!);
      }
    });
    s.on('error', () => undefined);
    s.on('close', () => resolve(-1));
  });
}

/** A SOCKS5 login and CONNECT to 127.0.0.1:`targetPort`; resolves the CONNECT reply's code (0 ok), or the login's failure (-1 closed, 100 + status). */
function socksTunnel(port: number, targetPort: number, username: string, password: string): Promise<number> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    const u = Buffer.from(username);
    const p = Buffer.from(password);
    let buf = Buffer.alloc(0);
    let stage: 'method' | 'auth' | 'connect' = 'method';
    const done = (code: number) => {
      s.destroy();
      resolve(code);
    };
    s.on('connect', () => s.write(Buffer.from([5, 1, 2])));
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (stage === 'method' && buf.length >= 2) {
        buf = buf.subarray(2);
        stage = 'auth';
        s.write(Buffer.concat([Buffer.from([1, u.length]), u, Buffer.from([p.length]), p]));
      }
      if (stage === 'auth' && buf.length >= 2) {
        if (buf[1] !== 0) return done(100 + buf[1]!);
        buf = buf.subarray(2);
        stage = 'connect';
        s.write(Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, targetPort >> 8, targetPort & 255]));
      }
      if (stage === 'connect' && buf.length >= 2) done(buf[1]!);
    });
    s.on('error', () => undefined);
    s.on('close', () => resolve(-1));
  });
}

async function inBatches<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += concurrency) out.push(...(await Promise.all(Array.from({ length: Math.min(concurrency, n - i) }, (_, k) => fn(i + k)))));
  return out;
}

describe('gateway login limits (real server, real sockets)', () => {
  let stack: Stack;
  let target: Awaited<ReturnType<typeof startTarget>>;
  let targetAuthority: string;
  beforeAll(async () => {
    stack = await startStack();
    target = await startTarget();
    targetAuthority = `127.0.0.1:${target.port}`;
  });
  afterAll(async () => {
    await stack.close();
    target.server.close();
  });

  async function gatewayWithCounter(delayMs = 0) {
    const { backend, calls } = countingBackend(stack.server.url, delayMs);
    const gateway: Gateway = await startGateway(stack.server, { backend });
    return { gateway, port: (gateway.server.address() as AddressInfo).port, calls };
  }

  it('1,000 wrong passwords from one client: at most 50 reach the server, the rest are 429 without a call', async () => {
    const u: ProxyUser = await userWithCredits(stack.server, 10n * 1024n * 1024n);
    const { gateway, port, calls } = await gatewayWithCounter();
    try {
      const t0 = Date.now();
      const statuses = await inBatches(1000, 25, (i) => connectStatus(port, targetAuthority, basic(u.username(), `wrong-${i}`)));
      const seconds = (Date.now() - t0) / 1000;
      const count = (s: number) => statuses.filter((x) => x === s).length;
      console.log(
        `1,000 wrong passwords in ${seconds.toFixed(2)} s: ${count(407)} answered 407, ${count(429)} answered 429; ${calls.length} authorize calls to the server (${(calls.length / seconds).toFixed(1)} per second over the burst; at most 50 a minute per address)`,
      );
      expect(count(407) + count(429)).toBe(1000);
      expect(count(407)).toBeLessThanOrEqual(50);
      expect(calls.length).toBeLessThanOrEqual(50);

      // Limited now, whatever it sends and however: no server call for any of it.
      const before = calls.length;
      expect(await connectStatus(port, targetAuthority, basic(u.username(), u.proxyPassword))).toBe(429);
      expect(await socksLogin(port, u.username(), u.proxyPassword)).not.toBe(0);
      const forward = await new Promise<string>((resolve) => {
        const s = connect({ host: '127.0.0.1', port });
        let data = '';
        s.on('connect', () =>
          s.write(
            `GET http://${targetAuthority}/hello HTTP/1.1\r\nHost: ${targetAuthority}\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`,
          ),
        );
        s.on('data', (d: Buffer) => (data += d.toString('latin1')));
        s.on('close', () => resolve(data));
      });
      expect(forward).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/);
      expect(forward).toMatch(/\r\nRetry-After: \d+\r\n/);
      expect(calls.length).toBe(before);

      // Another address that has not been failing gets in with the right password.
      expect(await connectStatus(port, targetAuthority, basic(u.username(), u.proxyPassword), '127.0.0.2')).toBe(200);
    } finally {
      await gateway.close();
    }
    await expectLedgerHolds(stack.server, u.userId);
  });

  it('guessing one user id from many addresses limits those addresses, never the owner with the right password', async () => {
    const u = await userWithCredits(stack.server, 10n * 1024n * 1024n);
    const { gateway, port, calls } = await gatewayWithCounter();
    try {
      // 60 addresses, 3 wrong guesses each: 180 failures for one user id.
      const attackers = Array.from({ length: 60 }, (_, i) => `127.0.1.${i + 1}`);
      for (let round = 0; round < 3; round++) {
        const statuses = await Promise.all(attackers.map((from, i) => connectStatus(port, targetAuthority, basic(u.username(), `guess-${round}-${i}`), from)));
        expect(statuses.every((s) => s === 407)).toBe(true);
      }
      const callsAfterGuessing = calls.length;
      // The user id is under attack: a failing address is refused for it without a server call...
      const further = await Promise.all(attackers.map((from, i) => connectStatus(port, targetAuthority, basic(u.username(), `guess-more-${i}`), from)));
      expect(further.every((s) => s === 429)).toBe(true);
      expect(await connectStatus(port, targetAuthority, basic(u.username(), u.proxyPassword), attackers[0])).toBe(429);
      expect(calls.length).toBe(callsAfterGuessing);
      // ...while the owner gets in from an address that has not been failing, even after one typo.
      expect(await connectStatus(port, targetAuthority, basic(u.username(), u.proxyPassword), '127.0.2.1')).toBe(200);
      expect(await connectStatus(port, targetAuthority, basic(u.username(), 'typo'), '127.0.2.2')).toBe(407);
      expect(await connectStatus(port, targetAuthority, basic(u.username(), u.proxyPassword), '127.0.2.2')).toBe(200);
      expect(await socksLogin(port, u.username(), u.proxyPassword, '127.0.2.3')).toBe(0);
    } finally {
      await gateway.close();
    }
    await expectLedgerHolds(stack.server, u.userId);
  });

  it('200 new tunnels at once from one address, right password, distinct session tokens: all get through, CONNECT and SOCKS5, cold and warm', async () => {
    const u = await userWithCredits(stack.server, 100n * 1024n * 1024n);
    const { gateway, port } = await gatewayWithCounter(1000);
    try {
      const usernames = () => Array.from({ length: 200 }, () => u.username({ country: 'US' }, 60, randomSessionToken()));
      const count = (xs: number[], v: number) => xs.filter((x) => x === v).length;
      // Cold: nothing cached, every login waits for the one server call.
      const coldConnect = await Promise.all(usernames().map((name) => connectStatus(port, targetAuthority, basic(name, u.proxyPassword))));
      expect(count(coldConnect, 200)).toBe(200);
      const warmConnect = await Promise.all(usernames().map((name) => connectStatus(port, targetAuthority, basic(name, u.proxyPassword))));
      expect(count(warmConnect, 200)).toBe(200);
      const warmSocks = await Promise.all(usernames().map((name) => socksTunnel(port, target.port, name, u.proxyPassword)));
      expect(count(warmSocks, 0)).toBe(200);
    } finally {
      await gateway.close();
    }
    // SOCKS5 cold, on a gateway of its own.
    const socks = await gatewayWithCounter(1000);
    try {
      const coldSocks = await Promise.all(
        Array.from({ length: 200 }, () => socksTunnel(socks.port, target.port, u.username({ country: 'US' }, 60, randomSessionToken()), u.proxyPassword)),
      );
      expect(coldSocks.filter((x) => x === 0)).toHaveLength(200);
      expect(socks.calls.length).toBeLessThanOrEqual(2);
    } finally {
      await socks.gateway.close();
    }
    await expectLedgerHolds(stack.server, u.userId);
  });

  it('a wrong-password flood with distinct session tokens is still throttled: 429 once the address has 50 failures', async () => {
    const u = await userWithCredits(stack.server, 10n * 1024n * 1024n);
    const { gateway, port } = await gatewayWithCounter();
    try {
      const statuses = await inBatches(300, 50, (i) =>
        connectStatus(port, targetAuthority, basic(u.username({ country: 'US' }, 60, randomSessionToken()), `wrong-${i % 3}`)),
      );
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
      expect(statuses.every((s) => s === 407 || s === 429)).toBe(true);
      expect(await connectStatus(port, targetAuthority, basic(u.username(), u.proxyPassword))).toBe(429);
    } finally {
      await gateway.close();
    }
  });

  it('an empty password is a 407 (SOCKS5: authentication failure), without a server call', async () => {
    const u = await userWithCredits(stack.server, 1024n * 1024n);
    const { gateway, port, calls } = await gatewayWithCounter();
    try {
      expect(await connectStatus(port, targetAuthority, basic(u.username(), ''))).toBe(407);
      expect(await connectStatus(port, targetAuthority, basic(u.username(), 'x'.repeat(300)))).toBe(407);
      expect(await socksLogin(port, u.username(), '')).toBe(1);
      expect(calls).toHaveLength(0);
    } finally {
      await gateway.close();
    }
  });
});
