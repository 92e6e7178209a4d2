import { connect, type Socket } from 'node:net';
import { SocksClient } from 'socks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  balances,
  basic,
  closeAll,
  expectLedgerHolds,
  hourlyUsage,
  SMALL_LEASES,
  startStackAndTarget,
  userWithCredits,
  type ProxyUser,
  type Stack,
  type Target,
} from './helpers';

const MiB = 1024 * 1024;
let stack: Stack;
let target: Target;

beforeAll(async () => ({ stack, target } = await startStackAndTarget({ meter: SMALL_LEASES })));
afterAll(() => closeAll(stack, target));

/** Counts what a socket receives (it reads only while `reading`); resolves when it closes. */
function counter(socket: Socket) {
  const c = { received: 0, closed: Promise.resolve(0) };
  socket.on('error', () => undefined);
  socket.on('data', (d: Buffer) => (c.received += d.length));
  c.closed = new Promise((resolve) => socket.once('close', () => resolve(c.received)));
  return c;
}

/** Resolves with a socket just past the proxy handshake, for each way in. */
const open = {
  connect: (u: ProxyUser) =>
    new Promise<Socket>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port: stack.port });
      s.write(`CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`);
      s.once('data', (d: Buffer) => {
        s.pause();
        const end = d.indexOf('\r\n\r\n');
        if (!d.toString('latin1', 0, end).startsWith('HTTP/1.1 200')) return reject(new Error(d.toString()));
        if (d.length > end + 4) s.unshift(d.subarray(end + 4));
        resolve(s);
      });
      s.on('error', reject);
    }),
  socks5: async (u: ProxyUser) => {
    const r = await SocksClient.createConnection({
      proxy: { host: '127.0.0.1', port: stack.port, type: 5, userId: u.username(), password: u.proxyPassword },
      command: 'connect',
      destination: { host: '127.0.0.1', port: target.port },
    });
    // The socks package resumes the socket on the next turn: paused after that, like the others.
    await new Promise((resolve) => setImmediate(resolve));
    r.socket.pause();
    return r.socket;
  },
};

describe('cut-off at zero balance', () => {
  for (const way of ['connect', 'socks5', 'http'] as const) {
    it(`${way}: bills the bytes the client received, not bytes queued for it and dropped`, async () => {
      const credits = 16n * BigInt(MiB);
      const u = await userWithCredits(stack.server, credits);
      // A client that stops reading: the gateway fills the socket buffers and queues more for it,
      // all of it spent from the balance when written.
      let stalled: Socket;
      if (way === 'http') {
        stalled = connect({ host: '127.0.0.1', port: stack.port });
        stalled.write(
          `GET ${target.url}/download?bytes=${64 * MiB} HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\nConnection: close\r\n\r\n`,
        );
      } else {
        stalled = await open[way](u);
        stalled.write(`GET /download?bytes=${64 * MiB} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
      }
      const a = counter(stalled);
      stalled.pause();
      await new Promise((r) => setTimeout(r, 500));
      // Another tunnel of the same user spends the rest of the balance: the cut reaches both.
      const busy = await open.connect(u);
      const b = counter(busy);
      busy.write(`GET /download?bytes=${64 * MiB} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
      busy.resume();
      await b.closed;
      stalled.resume();
      // A forwarded response carries the header line the gateway adds (its record's id), never billed.
      const ours = way === 'http' ? Buffer.byteLength(`X-ProxyHub-Connection: ${'0'.repeat(32)}\r\n`) : 0;
      const received = (await a.closed) + b.received - ours;
      await stack.gateway.flush();

      const usage = await hourlyUsage(stack.server, u.userId);
      expect(usage.down).toBe(received);
      // The whole balance was spent: what went up (the requests) and what the clients got.
      expect(await balances(u)).toEqual({ credits: 0n, usage: credits });
      await expectLedgerHolds(stack.server, u.userId);
    });
  }

  it('many tunnels of one account waiting for a lease at once are not cut while the balance lasts', async () => {
    // Each tunnel's first chunks outgrow the account's small first lease, so they all wait for the
    // same lease request; the first to resume spends it, and the others must ask again, not cut.
    const tunnels = 40;
    const bytes = 4 * MiB;
    const u = await userWithCredits(stack.server, 1024n * BigInt(MiB));
    const sockets = await Promise.all(Array.from({ length: tunnels }, () => open.connect(u)));
    const counts = sockets.map((s) => {
      const c = counter(s);
      s.write(`GET /download?bytes=${bytes} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
      s.resume();
      return c;
    });
    const received = await Promise.all(counts.map((c) => c.closed));
    for (const r of received) expect(r).toBeGreaterThan(bytes); // the body and its head, every one
    await stack.gateway.flush();
    const total = received.reduce((a, b) => a + b, 0);
    expect((await hourlyUsage(stack.server, u.userId)).down).toBe(total);
    await expectLedgerHolds(stack.server, u.userId);
  });
});
