/**
 * Usage alerts from real traffic: bytes through the gateway's tunnels, counted by its reports,
 * cross 80 % and then 90 % of a sub-account's cap, and its owner gets one mail for each (the default
 * percents), under concurrent connections and several reports.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProxyUsername } from '@proxyhub/core';
import { usageAlertMarks, users } from '@proxyhub/db';
import { closeAll, connectTunnel, exchangeUntilClosed, SMALL_LEASES, startStackAndTarget, userWithCredits, type Stack, type Target } from './helpers';

const MiB = 1024 * 1024;
/** 0.01 GB, as the server counts it. */
const CAP = 10737419;
let stack: Stack;
let target: Target;
beforeAll(async () => ({ stack, target } = await startStackAndTarget({ meter: { ...SMALL_LEASES, reportIntervalMs: 250 } })));
afterAll(() => closeAll(stack, target));

const get = (n: number) => `GET /download?bytes=${n} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`;

describe('usage alerts through the gateway', () => {
  it('80 % and 90 % of a cap crossed by traffic: one mail each', async () => {
    const u = await userWithCredits(stack.server, 1n << 30n);
    const [owner] = await stack.server.deps.db.select({ email: users.email }).from(users).where(eq(users.id, u.userId));
    const created = await u.client.post<{ account: { id: string; proxyUserId: string; proxyPassword: string } }>('/api/proxy-accounts', {
      name: 'metered',
      capGB: 0.01,
    });
    expect(created.status).toBe(201);
    const sub = created.body.account;
    const username = buildProxyUsername({ proxyUserId: sub.proxyUserId, location: { country: 'US' }, durationMinutes: 60 });
    const spend = async (connections: number, bytesEach: number) => {
      const tunnels = await Promise.all(Array.from({ length: connections }, () => connectTunnel(stack.port, target.port, username, sub.proxyPassword)));
      await Promise.all(tunnels.map((t) => exchangeUntilClosed(t, get(bytesEach))));
      await stack.gateway.flush();
      await stack.server.settle();
    };
    const mails = () => stack.server.mails(owner!.email).filter((m) => m.subject.endsWith('used: the cap of proxy account "metered"'));

    // About 86 % of the cap over four concurrent connections.
    await spend(4, Math.round(2.2 * MiB));
    expect(mails().map((m) => m.subject)).toEqual(['80% used: the cap of proxy account "metered"']);
    // About 94 %.
    await spend(2, Math.round(0.4 * MiB));
    expect(mails().map((m) => m.subject)).toEqual(['80% used: the cap of proxy account "metered"', '90% used: the cap of proxy account "metered"']);
    expect(mails()[1]!.text).toMatch(/You have used 0\.0\d GB of 0\.01 GB \(90%\) of the cap of proxy account "metered"/);
    const marks = await stack.server.deps.db.select().from(usageAlertMarks);
    expect(marks.filter((m) => m.limitBytes === BigInt(CAP) && m.notifiedPercent === 90)).toHaveLength(1);
  });
});
