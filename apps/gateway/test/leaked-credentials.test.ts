/**
 * Leaked credentials through the real gateway: a batch account whose password the seller still
 * holds cannot spend more of the buyer's wallet than the batch brought, and a rotated proxy password
 * is refused (open tunnels closed) within 10 s with the gateway's default credential cache.
 */
import { connect, type Socket } from 'node:net';
import { createTRPCClient, httpLink } from '@trpc/client';
import { eq } from 'drizzle-orm';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '@proxyhub/api';
import { buildProxyUsername } from '@proxyhub/core';
import { batches } from '@proxyhub/db';
import { balances, basic, curl, expectLedgerHolds, INTERNAL_KEY, startStack, startTarget, userWithCredits, type Stack } from './helpers';

const GiB = 1024n * 1024n * 1024n;
const BATCH_BYTES = 107374182n; // 0.1 GB
let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;
let internal: ReturnType<typeof createTRPCClient<AppRouter>>;

beforeAll(async () => {
  stack = await startStack();
  target = await startTarget();
  // What the shop bot uses to sell a batch.
  internal = createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${stack.server.url}/trpc`, transformer: superjson, headers: { authorization: `Bearer ${INTERNAL_KEY}` } })],
  });
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

/** A CONNECT tunnel to the target; rejects with the gateway's answer when it is refused. */
function tunnel(username: string, password: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: stack.port });
    socket.on('error', reject);
    socket.write(`CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\nProxy-Authorization: ${basic(username, password)}\r\n\r\n`);
    let head = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      if (!head.subarray(0, end).toString('latin1').startsWith('HTTP/1.1 200')) return reject(new Error(head.toString('latin1')));
      if (head.length > end + 4) socket.unshift(head.subarray(end + 4));
      resolve(socket);
    };
    socket.on('data', onData);
  });
}

/** Sends one request into the tunnel and counts what comes back until the socket closes. */
function download(socket: Socket, bytes: number): Promise<number> {
  return new Promise((resolve) => {
    let n = 0;
    socket.on('data', (d: Buffer) => (n += d.length));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(n));
    socket.write(`GET /download?bytes=${bytes} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
  });
}

const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

describe('a batch associated by a buyer', () => {
  it('spends at most what the batch brought through the gateway; the buyer keeps the rest and the main account works', async () => {
    const batch = await internal.credits.createBatch.mutate({ accounts: 1, creditsGB: 0.1, usageType: 'shop_proxy_regular' });
    const buyer = await userWithCredits(stack.server, GiB);
    expect((await buyer.client.post('/auth/process-batch', { batchId: batch.batchId })).status).toBe(200);
    expect((await balances(buyer)).credits).toBe(GiB + BATCH_BYTES);

    // Whoever still holds the batch account's password downloads 400 MB.
    const account = batch.accounts[0]!;
    const username = buildProxyUsername({ proxyUserId: account.proxyUserId, location: { country: 'US' }, durationMinutes: 60 });
    const received = await download(await tunnel(username, account.proxyPassword), 400 * 1024 * 1024);
    expect(received).toBeLessThanOrEqual(Number(BATCH_BYTES));
    expect(received).toBeGreaterThan(Number(BATCH_BYTES) * 0.9);
    await expect(tunnel(username, account.proxyPassword)).rejects.toThrow(/^HTTP\/1\.1 402/);

    await stack.gateway.flush();
    const after = await balances(buyer);
    expect(after.usage).toBeGreaterThanOrEqual(BigInt(received));
    expect(after.usage).toBeLessThanOrEqual(BATCH_BYTES);
    expect(after.credits).toBeGreaterThanOrEqual(GiB);
    console.log(
      `batch account: ${received} bytes received, ${after.usage} billed of the batch's ${BATCH_BYTES}; buyer's balance fell by ${GiB + BATCH_BYTES - after.credits}`,
    );
    const [row] = await stack.server.database.db.select().from(batches).where(eq(batches.batchCode, batch.batchId));
    expect(row!.capUsedBytes).toBe(after.usage);

    // The buyer's own account still has its whole gigabyte.
    const main = await curl([
      '-o',
      '/dev/null',
      '-x',
      stack.proxyUrl,
      '-U',
      `${buyer.username()}:${buyer.proxyPassword}`,
      `${target.url}/download?bytes=${5 * 1024 * 1024}`,
    ]);
    expect(main.status).toBe(200);
    await stack.gateway.flush();
    expect((await balances(buyer)).usage).toBeGreaterThanOrEqual(after.usage + 5n * 1024n * 1024n);
    await expectLedgerHolds(stack.server, buyer.userId);
  });
});

describe('rotating the proxy password', () => {
  it('the gateway refuses the old password and closes its open tunnel within 10 s', async () => {
    const u = await userWithCredits(stack.server, GiB);
    const open = await tunnel(u.username(), u.proxyPassword);
    const openClosed = closed(open);
    open.on('error', () => undefined);
    // A connection on the old password that already ended leaves a cached answer behind too.
    expect((await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `${target.url}/hello`])).status).toBe(200);

    const rotated = await u.client.post<{ success: boolean; proxyPassword: string }>('/auth/rotate-proxy-password');
    expect(rotated.status).toBe(200);
    const at = Date.now();
    await openClosed;
    const tunnelMs = Date.now() - at;
    let oldStatus = 0;
    while ((oldStatus = (await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `${target.url}/hello`])).status) === 200) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const refusedMs = Date.now() - at;
    console.log(`old proxy password: tunnel closed after ${tunnelMs} ms, new connections refused after ${refusedMs} ms`);
    expect(oldStatus).toBe(407);
    expect(tunnelMs).toBeLessThan(10_000);
    expect(refusedMs).toBeLessThan(10_000);
    const fresh = await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:${rotated.body.proxyPassword}`, `${target.url}/hello`]);
    expect(fresh.status).toBe(200);
    await stack.gateway.flush();
    await expectLedgerHolds(stack.server, u.userId);
  });
});
