/**
 * Suspension through the real gateway: an admin suspends a user and, with the gateway's default
 * credential cache, their open tunnel is closed and new connections are refused within 10 s;
 * unsuspending lets the same credentials in again within 10 s. A user deleting their own account
 * has the same effect (their proxy passwords are replaced and the accounts disabled).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  connectTunnel,
  curl,
  exchangeUntilClosed,
  expectLedgerHolds,
  socketClosed,
  startStack,
  startTarget,
  STRONG_PASSWORD,
  userWithCredits,
  type Stack,
} from './helpers';

const GiB = 1n << 30n;
let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;
beforeAll(async () => {
  stack = await startStack();
  target = await startTarget();
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

/** Polls the gateway with a request until `accepted(status)` holds; the milliseconds it took. */
async function until(accepted: (status: number) => boolean, args: string[]): Promise<{ ms: number; status: number }> {
  const at = Date.now();
  for (;;) {
    const { status } = await curl(args);
    if (accepted(status) || Date.now() - at > 20_000) return { ms: Date.now() - at, status };
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('suspending a user', () => {
  it('closes their open tunnel and refuses their credentials within 10 s; unsuspending restores them within 10 s', async () => {
    const u = await userWithCredits(stack.server, GiB);
    const admin = await adminClient(stack.server);
    const open = await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword);
    const openClosed = socketClosed(open);
    // A keep-alive request: after its answer the tunnel stays open (and spent), waiting for the next.
    void exchangeUntilClosed(open, `GET /download?bytes=${64 * 1024 * 1024} HTTP/1.1\r\nHost: t\r\n\r\n`);
    const args = ['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `${target.url}/hello`];
    expect((await curl(args)).status).toBe(200);

    expect(open.destroyed).toBe(false);
    expect((await admin.post(`/admin/users/${u.userId}/suspend`, { reason: 'abuse report' })).status).toBe(200);
    const at = Date.now();
    await openClosed;
    const tunnelMs = Date.now() - at;
    const refused = await until((s) => s !== 200, args);
    console.log(`suspended: tunnel closed after ${tunnelMs} ms, new connections refused (${refused.status}) after ${refused.ms} ms`);
    expect(tunnelMs).toBeLessThan(10_000);
    expect(refused.ms).toBeLessThan(10_000);
    expect([403, 407]).toContain(refused.status);

    expect((await admin.post(`/admin/users/${u.userId}/unsuspend`, {})).status).toBe(200);
    const back = await until((s) => s === 200, args);
    console.log(`unsuspended: accepted again after ${back.ms} ms`);
    expect(back).toMatchObject({ status: 200 });
    expect(back.ms).toBeLessThan(10_000);
    await stack.gateway.flush();
    await expectLedgerHolds(stack.server, u.userId);
  });
});

describe('deleting the account (the owner, from Settings)', () => {
  it('closes their open tunnel and refuses their proxy credentials within 10 s; the ledger still adds up', async () => {
    const u = await userWithCredits(stack.server, GiB);
    const open = await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword);
    const openClosed = socketClosed(open);
    void exchangeUntilClosed(open, `GET /download?bytes=${64 * 1024 * 1024} HTTP/1.1\r\nHost: t\r\n\r\n`);
    const args = ['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `${target.url}/hello`];
    expect((await curl(args)).status).toBe(200);

    expect((await u.client.request('DELETE', '/auth/user', { password: STRONG_PASSWORD })).status).toBe(200);
    const at = Date.now();
    await openClosed;
    const tunnelMs = Date.now() - at;
    const refused = await until((s) => s !== 200, args);
    expect(tunnelMs).toBeLessThan(10_000);
    expect(refused).toMatchObject({ status: 407 });
    expect(refused.ms).toBeLessThan(10_000);
    await stack.gateway.flush();
    await expectLedgerHolds(stack.server, u.userId);
  });
});
