/**
 * Usage recorded through the gateway with the username's location and the protocol shows up in
 * GET /api/usage (hour and day buckets, byCountry) with exactly the bytes that crossed the sockets,
 * and each country's connections (all ok here, each with a connect time).
 */
import { eq } from 'drizzle-orm';
import { SocksClient } from 'socks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyAccounts, usageHourly } from '@proxyhub/db';
import { balances, connectTunnel, exchangeUntilClosed, expectLedgerHolds, startStack, startTarget, userWithCredits, type Stack } from './helpers';

let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;
beforeAll(async () => {
  stack = await startStack({ meter: { reportIntervalMs: 200 } });
  target = await startTarget();
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

const request = (bytes: number) => `GET /download?bytes=${bytes} HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n`;

type Usage = {
  points: { start: string; bytesUp: string; bytesDown: string; sessions: number }[];
  totals: { bytesUp: string; bytesDown: string; sessions: number };
  byCountry: { country: string | null; bytes: string; okRate: number | null; p50ConnectMs: number | null }[];
};

describe('usage history through the gateway', () => {
  it('bills and records CONNECT and SOCKS5 traffic under the username’s location, exactly', async () => {
    const u = await userWithCredits(stack.server, 1n << 30n);
    const us = u.username({ country: 'US', state: 'CA', city: 'LOSANGELES' });
    const de = u.username({ country: 'DE' });

    const reqUs = request(300_000);
    const downUs = await exchangeUntilClosed(await connectTunnel(stack.port, target.port, us, u.proxyPassword), reqUs);
    const reqDe = request(200_000);
    const socks = await SocksClient.createConnection({
      proxy: { host: '127.0.0.1', port: stack.port, type: 5, userId: de, password: u.proxyPassword },
      command: 'connect',
      destination: { host: '127.0.0.1', port: target.port },
    });
    const downDe = await exchangeUntilClosed(socks.socket, reqDe);
    expect(downUs).toBeGreaterThan(300_000);
    expect(downDe).toBeGreaterThan(200_000);
    const upUs = reqUs.length;
    const upDe = reqDe.length;
    const all = BigInt(upUs + downUs + upDe + downDe);

    // Reported within a few report intervals; what is billed is what crossed the sockets.
    await expect.poll(async () => (await balances(u)).usage, { timeout: 10_000, interval: 100 }).toBe(all);
    const hours = (await u.client.get<Usage>('/api/usage')).body;
    expect(hours.totals).toEqual({ bytesUp: String(upUs + upDe), bytesDown: String(downUs + downDe), sessions: 2 });
    expect(hours.points.at(-1)).toMatchObject({ bytesUp: String(upUs + upDe), bytesDown: String(downUs + downDe), sessions: 2 });
    expect(hours.byCountry).toEqual(
      [
        { country: 'US', bytes: String(upUs + downUs), okRate: 1, p50ConnectMs: expect.any(Number) as number },
        { country: 'DE', bytes: String(upDe + downDe), okRate: 1, p50ConnectMs: expect.any(Number) as number },
      ].sort((a, b) => Number(b.bytes) - Number(a.bytes)),
    );
    const days = (await u.client.get<Usage>('/api/usage?granularity=day')).body;
    expect(days.totals).toEqual(hours.totals);
    expect(days.byCountry).toEqual(hours.byCountry);

    const [main] = await stack.server.deps.db.select().from(proxyAccounts).where(eq(proxyAccounts.proxyUserId, u.proxyUserId));
    const rows = await stack.server.deps.db.select().from(usageHourly).where(eq(usageHourly.proxyAccountId, main!.id));
    expect(rows.map((r) => [r.protocol, r.country, r.state, r.city, r.bytesUp, r.bytesDown, r.sessions]).sort()).toEqual(
      [
        ['connect', 'US', 'CA', 'LOSANGELES', BigInt(upUs), BigInt(downUs), 1],
        ['socks5', 'DE', '', '', BigInt(upDe), BigInt(downDe), 1],
      ].sort(),
    );
    await expectLedgerHolds(stack.server, u.userId);
  });
});
