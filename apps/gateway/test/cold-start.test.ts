import { eq } from 'drizzle-orm';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkLedger } from '@proxyhub/api';
import { buildProxyUsername } from '@proxyhub/core';
import { batches } from '@proxyhub/db';
import { createBackend, type Backend } from '../src/backend';
import {
  balances,
  connectTunnel,
  exchangeUntilClosed,
  INTERNAL_KEY,
  internalClient,
  startGateway,
  startStack,
  startTarget,
  tunnelOver,
  userWithCredits,
  type Stack,
} from './helpers';

const ACCOUNTS = 500;
let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;

beforeAll(async () => {
  // One client address opens them all: its limit of logins waiting for the server is raised.
  stack = await startStack({ loginLimits: { perAddress: 10_000 } });
  target = await startTarget();
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

describe('many new accounts at once (a cold auth cache)', () => {
  it(`${ACCOUNTS} accounts sharing 2 GB connect together: every tunnel opens, and one usage report for all their leases bills each byte`, async () => {
    // Leases start small: with 16 MiB first leases (two held per account) the batch's allowance
    // was tied up after about 60 accounts, and the rest were refused with 402 while it was unused.
    const batch = await internalClient(stack.server).credits.createBatch.mutate({ accounts: ACCOUNTS, creditsGB: 2, usageType: 'shop_proxy_regular' });
    const request = 'GET / HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n';
    // Connected first, then all logins at once. The gateway shares this process's event loop with
    // the embedded database, and Node accepts one connection per turn of it: sent on connect, the
    // logins trickled in behind each database call, two a batch, 17 s for 500 (a gateway of its
    // own accepts a burst in milliseconds while it waits for the server).
    const sockets = batch.accounts.map(() => connect({ host: '127.0.0.1', port: stack.port }));
    await vi.waitFor(() => expect(stack.gateway.stats().connections).toBe(ACCOUNTS), { timeout: 20_000, interval: 5 });
    const received = await Promise.all(
      batch.accounts.map(async (a, i) => {
        const username = buildProxyUsername({ proxyUserId: a.proxyUserId, location: { country: 'US' }, durationMinutes: 60 });
        return exchangeUntilClosed(await tunnelOver(sockets[i]!, target.port, username, a.proxyPassword), request);
      }),
    );
    expect(received.every((n) => n > 0)).toBe(true);

    // One report names all their leases (well past the 64 KiB other callers may send) and is applied.
    await stack.gateway.flush();
    const [row] = await stack.server.database.db.select().from(batches).where(eq(batches.batchCode, batch.batchId));
    const moved = received.reduce((n, r) => n + r, 0) + ACCOUNTS * request.length;
    expect(row!.totalUsageBytes).toBe(BigInt(moved));
    expect(await checkLedger(stack.server.database.db)).toMatchObject({ ok: true });
  });
});

describe('a small allowance shared by many accounts', () => {
  it('150 accounts of a 0.1 GB batch hold tunnels open at once: none is refused while most of the allowance is unused', async () => {
    // 0.1 GB is about 102 MiB: 1 MiB first leases (and the next lease asked for at the first byte)
    // tied it all up after some fifty accounts, and the rest got 402 with the bytes unspent.
    const batch = await internalClient(stack.server).credits.createBatch.mutate({ accounts: 150, creditsGB: 0.1, usageType: 'shop_proxy_regular' });
    const opened = await Promise.allSettled(
      batch.accounts.map((a) => {
        const username = buildProxyUsername({ proxyUserId: a.proxyUserId, location: { country: 'US' }, durationMinutes: 60 });
        return connectTunnel(stack.port, target.port, username, a.proxyPassword);
      }),
    );
    const refused = opened.flatMap((o) => (o.status === 'rejected' ? [String(o.reason).split('\r\n')[0]] : []));
    expect(refused).toEqual([]);
    const tunnels = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const request = 'GET / HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n';
    const received = await Promise.all(tunnels.map((t) => exchangeUntilClosed(t, request)));
    expect(received.every((n) => n > 0)).toBe(true);
    await stack.gateway.flush();
    const [row] = await stack.server.database.db.select().from(batches).where(eq(batches.batchCode, batch.batchId));
    expect(row!.totalUsageBytes).toBe(BigInt(received.reduce((n, r) => n + r, 0) + 150 * request.length));
    expect(await checkLedger(stack.server.database.db)).toMatchObject({ ok: true });
  });
});

describe("a new account's first connection", () => {
  /** The real backend, counting the calls the gateway makes. */
  function countingBackend(): { backend: Backend; calls: Record<string, number> } {
    const real = createBackend(stack.server.url, INTERNAL_KEY);
    const calls: Record<string, number> = {};
    const backend = Object.fromEntries(
      Object.entries(real).map(([name, call]) => [
        name,
        (...args: unknown[]) => {
          calls[name] = (calls[name] ?? 0) + 1;
          return (call as (...a: unknown[]) => unknown)(...args);
        },
      ]),
    ) as unknown as Backend;
    return { backend, calls };
  }

  it('waits for one server call: the login brings the first lease, and every byte is billed from it', async () => {
    const { backend, calls } = countingBackend();
    const gateway = await startGateway(stack.server, { backend });
    try {
      const port = (gateway.server.address() as { port: number }).port;
      const u = await userWithCredits(stack.server, 10n * 1024n * 1024n);
      const request = 'GET / HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n';
      const socket = await connectTunnel(port, target.port, u.username(), u.proxyPassword);
      expect(calls).toMatchObject({ authorize: 1 });
      expect(calls.reserveLease).toBeUndefined();
      const received = await exchangeUntilClosed(socket, request);
      expect(received).toBeGreaterThan(0);
      await gateway.flush();
      expect((await balances(u)).usage).toBe(BigInt(received + request.length));
      expect(await checkLedger(stack.server.database.db)).toMatchObject({ ok: true });
    } finally {
      await gateway.close();
    }
  });

  it('at zero balance is refused with 402 after that one call', async () => {
    const { backend, calls } = countingBackend();
    const gateway = await startGateway(stack.server, { backend });
    try {
      const port = (gateway.server.address() as { port: number }).port;
      const u = await userWithCredits(stack.server, 0n);
      await expect(connectTunnel(port, target.port, u.username(), u.proxyPassword)).rejects.toThrow(/^HTTP\/1\.1 402/);
      expect(calls).toMatchObject({ authorize: 1 });
      expect(calls.reserveLease).toBeUndefined();
    } finally {
      await gateway.close();
    }
  });
});
