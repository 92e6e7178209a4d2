/**
 * Sub-account limits through the real gateway, bytes counted through real sockets: a daily and a
 * monthly limit hold under 50 concurrent connections of one account (never passed by more than
 * 1 MiB) and are answered "Proxy account limit reached" while the wallet still has data; an
 * expired account is refused with 403 (SOCKS5: 0x02); maxConnections refuses the connection over
 * the limit with 429 (SOCKS5: 0x02), across two gateways within a few seconds.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProxyUsername } from '@proxyhub/core';
import {
  closeAll,
  connectTunnel,
  exchangeUntilClosed,
  expectLedgerHolds,
  rawExchange,
  SMALL_LEASES,
  socketClosed,
  startGateway,
  startStackAndTarget,
  userWithCredits,
  type Stack,
  type Target,
} from './helpers';
import type { AddressInfo } from 'node:net';

const MiB = 1024 * 1024;
/** 0.01 GB, as the server counts it. */
const LIMIT = 10737419;
let stack: Stack;
let target: Target;
beforeAll(async () => ({ stack, target } = await startStackAndTarget({ meter: { ...SMALL_LEASES, reportIntervalMs: 250 } })));
afterAll(() => closeAll(stack, target));

interface Account {
  proxyUserId: string;
  proxyPassword: string;
  usedBytes: string;
  capBytes: string | null;
  dailyLimitBytes: string | null;
  monthlyLimitBytes: string | null;
  dayUsedBytes: string;
  monthUsedBytes: string;
  expiresAt: string | null;
  maxConnections: number | null;
}
const usernameOf = (a: { proxyUserId: string }) => buildProxyUsername({ proxyUserId: a.proxyUserId, location: { country: 'US' }, durationMinutes: 60 });
const get = (n: number) => `GET /download?bytes=${n} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`;

/** A SOCKS5 CONNECT to the target with a login; the reply code of the request (after the greeting and login answers). */
async function socksReply(port: number, a: Account): Promise<number | undefined> {
  const user = Buffer.from(usernameOf(a));
  const pass = Buffer.from(a.proxyPassword);
  const req = Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, target.port >> 8, target.port & 255]);
  const { data } = await rawExchange(port, [
    Buffer.from([5, 1, 2]),
    Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]),
    req,
  ]);
  return data[5];
}

async function subAccount(u: Awaited<ReturnType<typeof userWithCredits>>, body: Record<string, unknown>): Promise<Account> {
  const res = await u.client.post<{ account: Account }>('/api/proxy-accounts', { name: 'limited', ...body });
  expect(res.status).toBe(201);
  return res.body.account;
}

async function accountNow(u: Awaited<ReturnType<typeof userWithCredits>>, proxyUserId: string): Promise<Account> {
  await stack.gateway.flush();
  return (await u.client.get<{ accounts: Account[] }>('/api/proxy-accounts')).body.accounts.find((a) => a.proxyUserId === proxyUserId)!;
}

describe('sub-account limits at the gateway', () => {
  for (const field of ['dailyLimitGB', 'monthlyLimitGB'] as const) {
    it(`${field} holds under 50 concurrent connections, then 402 "Proxy account limit reached"`, async () => {
      const u = await userWithCredits(stack.server, 1n << 30n);
      const sub = await subAccount(u, { [field]: 0.01 });
      expect(field === 'dailyLimitGB' ? sub.dailyLimitBytes : sub.monthlyLimitBytes).toBe(String(LIMIT));
      const tunnels = await Promise.all(Array.from({ length: 50 }, () => connectTunnel(stack.port, target.port, usernameOf(sub), sub.proxyPassword)));
      const received = (await Promise.all(tunnels.map((t) => exchangeUntilClosed(t, get(2 * MiB))))).reduce((a, b) => a + b, 0);
      console.log(`${field}: 50 connections received ${received} bytes under a limit of ${LIMIT}`);
      expect(received).toBeLessThanOrEqual(LIMIT + MiB);
      expect(received).toBeGreaterThan(LIMIT * 0.8);
      const refused = await connectTunnel(stack.port, target.port, usernameOf(sub), sub.proxyPassword).then(
        () => '',
        (e: Error) => e.message,
      );
      expect(refused).toMatch(/^HTTP\/1\.1 402 /);
      expect(refused).toContain('Proxy account limit reached');
      expect(refused).not.toContain('top up');
      expect(await socksReply(stack.port, sub)).toBe(0x02);
      const now = await accountNow(u, sub.proxyUserId);
      const used = BigInt(field === 'dailyLimitGB' ? now.dayUsedBytes : now.monthUsedBytes);
      expect(used).toBeGreaterThanOrEqual(BigInt(received));
      expect(used).toBeLessThanOrEqual(BigInt(LIMIT + MiB));
      // The main account of the same wallet goes on.
      const main = await exchangeUntilClosed(await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword), get(MiB));
      expect(main).toBeGreaterThan(MiB);
      await stack.gateway.flush();
      await expectLedgerHolds(stack.server, u.userId);
    });
  }

  it('an expired account is refused with 403 "Proxy account expired" (SOCKS5 0x02), and a later expiry lets it in', async () => {
    const u = await userWithCredits(stack.server, 1n << 30n);
    const sub = await subAccount(u, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    const refused = await connectTunnel(stack.port, target.port, usernameOf(sub), sub.proxyPassword).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused).toContain('Proxy account expired');
    expect(await socksReply(stack.port, sub)).toBe(0x02);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const patched = await u.client.request<{ account: Account }>('PATCH', `/api/proxy-accounts/${sub.proxyUserId}`, { expiresAt: later });
    expect(patched.status).toBe(200);
    expect(patched.body.account.expiresAt).toBe(later);
    // Within the gateway's credential cache (seconds).
    const deadline = Date.now() + 15_000;
    let ok = false;
    while (!ok && Date.now() < deadline) {
      ok = await connectTunnel(stack.port, target.port, usernameOf(sub), sub.proxyPassword).then(
        (s) => (s.destroy(), true),
        () => false,
      );
      if (!ok) await new Promise((r) => setTimeout(r, 250));
    }
    expect(ok).toBe(true);
  });

  it('maxConnections: of 50 concurrent connections only the limit is let in, the rest get 429; a closed one frees its place', async () => {
    const u = await userWithCredits(stack.server, 1n << 30n);
    const sub = await subAccount(u, { maxConnections: 5 });
    expect(sub.maxConnections).toBe(5);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        connectTunnel(stack.port, target.port, usernameOf(sub), sub.proxyPassword).then(
          (s): Socket | string => s,
          (e: Error) => e.message,
        ),
      ),
    );
    const open = results.filter((r): r is Socket => typeof r !== 'string');
    const refused = results.filter((r): r is string => typeof r === 'string');
    expect(open).toHaveLength(5);
    for (const r of refused) {
      expect(r).toMatch(/^HTTP\/1\.1 429 /);
      expect(r).toContain('Too many connections for this proxy account');
    }
    expect(await socksReply(stack.port, sub)).toBe(0x02);
    const closed = socketClosed(open[0]!);
    open[0]!.destroy();
    await closed;
    await new Promise((r) => setTimeout(r, 50));
    const again = await connectTunnel(stack.port, target.port, usernameOf(sub), sub.proxyPassword);
    for (const s of [...open.slice(1), again]) s.destroy();
  });

  it('maxConnections holds across two gateways within a few seconds', async () => {
    const second = await startGateway(stack.server, { meter: { reportIntervalMs: 250 } });
    try {
      const port2 = (second.server.address() as AddressInfo).port;
      const u = await userWithCredits(stack.server, 1n << 30n);
      const sub = await subAccount(u, { maxConnections: 4 });
      const first = await Promise.all(Array.from({ length: 3 }, () => connectTunnel(stack.port, target.port, usernameOf(sub), sub.proxyPassword)));
      // The first gateway's count reaches the server with its next report; the second hears its allowance with its own.
      const deadline = Date.now() + 8000;
      let refused = '';
      const on2: Socket[] = [];
      while (!refused && Date.now() < deadline) {
        const r = await connectTunnel(port2, target.port, usernameOf(sub), sub.proxyPassword).then(
          (s): Socket | string => s,
          (e: Error) => e.message,
        );
        if (typeof r === 'string') refused = r;
        else on2.push(r);
        await new Promise((res) => setTimeout(res, 300));
      }
      expect(refused).toMatch(/^HTTP\/1\.1 429 /);
      expect(first.length + on2.length).toBeLessThanOrEqual(4 + 1);
      for (const s of [...first, ...on2]) s.destroy();
    } finally {
      await second.close();
    }
  });
});
