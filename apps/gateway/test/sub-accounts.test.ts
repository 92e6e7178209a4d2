/**
 * Sub-accounts through the real gateway: one with a small cap is cut at its cap while the main
 * account of the same user goes on downloading; disabling a sub-account closes its open tunnel and
 * refuses it within 10 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProxyUsername } from '@proxyhub/core';
import {
  closeAll,
  connectTunnel,
  curl,
  exchangeUntilClosed,
  expectLedgerHolds,
  SMALL_LEASES,
  socketClosed,
  startStackAndTarget,
  userWithCredits,
  type Stack,
  type Target,
} from './helpers';

const MiB = 1024 * 1024;
let stack: Stack;
let target: Target;
// Small leases, so the cap is reached in small steps.
beforeAll(async () => ({ stack, target } = await startStackAndTarget({ meter: SMALL_LEASES })));
afterAll(() => closeAll(stack, target));

type Account = { proxyUserId: string; proxyPassword: string; usedBytes: string; disabled: boolean };
const usernameOf = (a: { proxyUserId: string }) => buildProxyUsername({ proxyUserId: a.proxyUserId, location: { country: 'US' }, durationMinutes: 60 });
const get = (req: number) => `GET /download?bytes=${req} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`;

describe('sub-accounts', () => {
  it('a capped sub-account stops at its cap while the main account goes on', async () => {
    const u = await userWithCredits(stack.server, 1n << 30n);
    const made = await u.client.post<{ account: Account }>('/api/proxy-accounts', { name: 'small', capGB: 0.01 });
    const sub = made.body.account;
    const cap = 10737419;
    const received = await exchangeUntilClosed(await connectTunnel(stack.port, target.port, usernameOf(sub), sub.proxyPassword), get(50 * MiB));
    expect(received).toBeLessThanOrEqual(cap);
    expect(received).toBeGreaterThan(cap * 0.9);
    await expect(connectTunnel(stack.port, target.port, usernameOf(sub), sub.proxyPassword)).rejects.toThrow(/^HTTP\/1\.1 402/);

    const main = await exchangeUntilClosed(await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword), get(20 * MiB));
    expect(main).toBeGreaterThan(20 * MiB);
    await stack.gateway.flush();
    const accounts = (await u.client.get<{ accounts: Account[] }>('/api/proxy-accounts')).body.accounts;
    const used = BigInt(accounts.find((a) => a.proxyUserId === sub.proxyUserId)!.usedBytes);
    expect(used).toBeGreaterThanOrEqual(BigInt(received));
    expect(used).toBeLessThanOrEqual(BigInt(cap));
    await expectLedgerHolds(stack.server, u.userId);
  });

  it('disabling a sub-account closes its open tunnel and refuses it within 10 s', async () => {
    const u = await userWithCredits(stack.server, 1n << 30n);
    const sub = (await u.client.post<{ account: Account }>('/api/proxy-accounts', { name: 'to disable' })).body.account;
    const open = await connectTunnel(stack.port, target.port, usernameOf(sub), sub.proxyPassword);
    const closed = socketClosed(open);
    void exchangeUntilClosed(open, `GET /download?bytes=${MiB} HTTP/1.1\r\nHost: t\r\n\r\n`);
    expect(open.destroyed).toBe(false);
    expect((await u.client.request('PATCH', `/api/proxy-accounts/${sub.proxyUserId}`, { disabled: true })).status).toBe(200);
    const at = Date.now();
    await closed;
    const ms = Date.now() - at;
    console.log(`disabled sub-account: tunnel closed after ${ms} ms`);
    expect(ms).toBeLessThan(10_000);
    const refused = await curl(['-x', stack.proxyUrl, '-U', `${usernameOf(sub)}:${sub.proxyPassword}`, `${target.url}/hello`]);
    expect(refused.status).not.toBe(200);
    // The main account is untouched.
    expect((await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `${target.url}/hello`])).status).toBe(200);
    await stack.gateway.flush();
    await expectLedgerHolds(stack.server, u.userId);
  });
});
