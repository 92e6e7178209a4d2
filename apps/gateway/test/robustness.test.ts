import { sql } from 'drizzle-orm';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { SocksClient } from 'socks';
import { loadLocations } from '@proxyhub/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basic,
  curl,
  openFds as openProcessFds,
  rawExchange,
  startGateway,
  startStack,
  startTarget,
  userWithCredits,
  type ProxyUser,
  type Stack,
} from './helpers';

const MiB = 1024 * 1024;
let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;
let u: ProxyUser;

beforeAll(async () => {
  // The default handshake deadline: 1,000 connections at once on a loaded CI machine took longer
  // than a short one (the deadline test below starts a gateway of its own).
  stack = await startStack();
  target = await startTarget();
  u = await userWithCredits(stack.server, 2048n * BigInt(MiB));
  loadLocations(); // the server builds its location index on first use: not within the short deadline
  // The first login and lease (server calls, cold caches) can outlast this stack's 400 ms handshake
  // deadline on a busy machine (the whole suite at once): asked again until they are warm.
  for (let i = 0; i < 5 && (await served()) !== 200; i++);
  await stillServes();
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

function closed(socket: Socket): Promise<void> {
  socket.on('error', () => undefined);
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

/** A raw TCP target: on EOF it answers how many bytes it got, then ends (half-close test). */
async function tcpTarget(handler: (s: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer({ allowHalfOpen: true }, (s) => {
    s.on('error', () => undefined); // resets are part of these tests
    handler(s);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

async function openTunnel(port: number): Promise<Socket> {
  const s = connect({ host: '127.0.0.1', port: stack.port });
  s.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`);
  let buf: Buffer = Buffer.alloc(0);
  while (buf.indexOf('\r\n\r\n') < 0) {
    const [d] = (await once(s, 'data')) as [Buffer];
    buf = Buffer.concat([buf, d]);
  }
  expect(buf.toString('latin1')).toMatch(/^HTTP\/1\.1 200/);
  const rest = buf.subarray(buf.indexOf('\r\n\r\n') + 4);
  if (rest.length) s.unshift(rest);
  return s;
}

async function served(): Promise<number> {
  return (await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `${target.url}/hello`])).status;
}

async function stillServes() {
  expect(await served()).toBe(200);
}

describe('hostile and broken clients', () => {
  it('answers garbage and malformed HTTP with a 4xx and closes, and keeps serving', async () => {
    const cases: Array<[Buffer, RegExp]> = [
      [Buffer.from('\x16\x03\x01\x02\x00garbage-that-looks-like-tls\r\n\r\n'), /^HTTP\/1\.1 400/],
      [Buffer.from('HELLO\r\n\r\n'), /^HTTP\/1\.1 400/],
      [Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'), /^HTTP\/1\.1 400 .*\r\n[\s\S]*This is a proxy/],
      [Buffer.from('CONNECT nohostport HTTP/1.1\r\n\r\n'), /^HTTP\/1\.1 400[\s\S]*Malformed CONNECT target/],
      [Buffer.from('CONNECT 127.0.0.1:99999 HTTP/1.1\r\n\r\n'), /^HTTP\/1\.1 400/],
      [Buffer.from('GET http://127.0.0.1/ HTTP/1.1\r\nBad Header\r\n\r\n'), /^HTTP\/1\.1 400/],
      [Buffer.from(`GET http://127.0.0.1/ HTTP/1.1\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`), /^HTTP\/1\.1 431/],
      [Buffer.from('CONNECT 127.0.0.1:80 HTTP/1.1\r\nProxy-Authorization: Basic !!!\r\n\r\n'), /^HTTP\/1\.1 407/],
      [Buffer.from(`CONNECT 127.0.0.1:80 HTTP/1.1\r\nProxy-Authorization: Basic ${Buffer.from('nocolon').toString('base64')}\r\n\r\n`), /^HTTP\/1\.1 407/],
    ];
    for (const [bytes, expected] of cases) {
      const r = await rawExchange(stack.port, [bytes]);
      expect(r.data.toString('latin1'), bytes.toString('latin1').slice(0, 40)).toMatch(expected);
    }
    await stillServes();
  });

  it('refuses malformed SOCKS5 handshakes with the protocol answer or a close', async () => {
    const auth = (name: string, pass: string) =>
      Buffer.concat([Buffer.from([1, name.length]), Buffer.from(name), Buffer.from([pass.length]), Buffer.from(pass)]);
    const name = u.username();
    const req = (cmd: number, atyp: number, addr: number[]) => Buffer.from([5, cmd, 0, atyp, ...addr, target.port >> 8, target.port & 0xff]);
    // No methods at all; only "no authentication": answered 0xFF (no acceptable method).
    expect((await rawExchange(stack.port, [Buffer.from([5, 0])])).data.length).toBe(0);
    expect([...(await rawExchange(stack.port, [Buffer.from([5, 1, 0])])).data]).toEqual([5, 0xff]);
    // A wrong subnegotiation version: closed.
    expect([...(await rawExchange(stack.port, [Buffer.from([5, 1, 2]), Buffer.from([9, 1, 65, 1, 65])])).data]).toEqual([5, 2]);
    // BIND and UDP ASSOCIATE are not supported (7), unknown address types neither (8).
    const bind = await rawExchange(stack.port, [Buffer.from([5, 1, 2]), auth(name, u.proxyPassword), req(2, 1, [127, 0, 0, 1])]);
    expect([...bind.data]).toEqual([5, 2, 1, 0, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0]);
    const atyp = await rawExchange(stack.port, [Buffer.from([5, 1, 2]), auth(name, u.proxyPassword), Buffer.from([5, 1, 0, 9, 1, 2, 3, 4])]);
    expect([...atyp.data]).toEqual([5, 2, 1, 0, 5, 8, 0, 1, 0, 0, 0, 0, 0, 0]);
    // An oversized handshake buffer: closed.
    const big = await rawExchange(stack.port, [Buffer.from([5, 1, 2]), Buffer.from([1, 255]), Buffer.alloc(2000, 65)]);
    expect(big.closed).toBe(true);
    // A domain name with a zero length or junk characters: host unreachable (4).
    const junk = await rawExchange(stack.port, [Buffer.from([5, 1, 2]), auth(name, u.proxyPassword), Buffer.from([5, 1, 0, 3, 3, 0x20, 0x2f, 0x00, 0, 80])]);
    expect(junk.data[junk.data.length - 10 + 1]).toBe(4);
    await stillServes();
  });

  it('times out truncated handshakes and slow clients (the deadline is absolute)', async () => {
    const quick = await startGateway(stack.server, { handshakeTimeoutMs: 400 });
    const port = (quick.server.address() as AddressInfo).port;
    try {
      const started = Date.now();
      const truncated = [
        rawExchange(port, [Buffer.from('CONNECT 127.0.0.1:80 HTTP/1.1\r\n')]),
        rawExchange(port, [Buffer.from([5, 1])]),
        rawExchange(port, [Buffer.from([5, 1, 2]), Buffer.from([1, 10, 65])]),
        rawExchange(port, []),
      ];
      const results = await Promise.all(truncated);
      for (const r of results) expect(r.closed).toBe(true);
      expect(Date.now() - started).toBeLessThan(5000);

      // A slowloris client dripping one byte every 50 ms never completes its head: cut at the deadline.
      const s = connect({ host: '127.0.0.1', port: port });
      const text = `CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`;
      let i = 0;
      const drip = setInterval(() => {
        if (!s.destroyed && i < text.length) s.write(text[i++]!);
      }, 50);
      const t0 = Date.now();
      await closed(s);
      clearInterval(drip);
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(i).toBeLessThan(text.length);
    } finally {
      await quick.close();
    }
    await stillServes();
  });

  it('passes half-close through, tears both sides down on a reset, and honours backpressure', async () => {
    // Half-close: the client ends its side; the target still answers and then ends.
    const echo = await tcpTarget((s) => {
      let n = 0;
      s.on('data', (d: Buffer) => (n += d.length));
      s.on('end', () => s.end(`bye:${n}`));
    });
    const a = await openTunnel(echo.port);
    const reply: Buffer[] = [];
    a.on('data', (d: Buffer) => reply.push(d));
    a.end('hello');
    await closed(a);
    expect(Buffer.concat(reply).toString()).toBe('bye:5');

    // A reset from the target destroys the client side too.
    const rst = await tcpTarget((s) => s.once('data', () => s.resetAndDestroy()));
    const b = await openTunnel(rst.port);
    b.write('x');
    await closed(b);

    // Backpressure: a client that does not read holds the target back (nothing piles up in the gateway).
    let written = 0;
    let targetSocket: Socket | undefined;
    const firehose = await tcpTarget((s) => {
      targetSocket = s;
      s.on('error', () => undefined);
      const chunk = Buffer.alloc(64 * 1024);
      const pump = () => {
        while (!s.destroyed && written < 512 * MiB) {
          written += chunk.length;
          if (!s.write(chunk)) return void s.once('drain', pump);
        }
      };
      pump();
    });
    const c = await openTunnel(firehose.port);
    c.pause();
    // Until the pipe is full and the target blocked: 500 ms on a quiet machine, longer on a loaded one.
    let stalled = -1;
    for (let i = 0; i < 40 && written !== stalled; i++) {
      stalled = written;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(written).toBe(stalled); // the target is blocked, not buffering into our memory
    expect(written).toBeLessThan(64 * MiB);
    c.destroy();
    await closed(targetSocket!);
    for (const srv of [echo.server, rst.server, firehose.server]) srv.close();
  });

  it('relays a target that speaks first (a banner before the tunnel is up), byte for byte', async () => {
    const banner = Buffer.concat([Buffer.from('220 hello from a server-speaks-first protocol\r\n'), Buffer.alloc(300_000, 7)]);
    const talker = await tcpTarget((s) => {
      s.on('error', () => undefined);
      s.end(banner);
    });
    const s = await openTunnel(talker.port);
    const got: Buffer[] = [];
    s.on('data', (d: Buffer) => got.push(d));
    await closed(s);
    expect(Buffer.concat(got).equals(banner)).toBe(true);
    talker.server.close();
  });

  it('keeps each tunnel its own bytes when several relay at once and one client stalls (shared read buffers)', async () => {
    // Each download's target sends the byte value its client asks for; a client that stops reading
    // leaves the gateway holding a queued write while the other tunnels keep reading.
    const bytes = 24 * MiB;
    const senders = await tcpTarget((s) => {
      s.once('data', (ask: Buffer) => {
        const chunk = Buffer.alloc(64 * 1024, ask[0]);
        let left = bytes;
        const pump = () => {
          while (!s.destroyed && left > 0) {
            left -= chunk.length;
            if (!s.write(chunk)) return void s.once('drain', pump);
          }
          s.end();
        };
        pump();
      });
    });
    // Uploads too: each client sends its own byte value to a target that checks it.
    const mixed: string[] = [];
    const checker = await tcpTarget((s) => {
      let first = -1;
      s.on('data', (d: Buffer) => {
        if (first < 0) first = d[0]!;
        if (d.some((b) => b !== first)) mixed.push(`upload ${String.fromCharCode(first)}`);
      });
      s.on('end', () => s.end());
    });
    const receive = (s: Socket, value: number, stallMs: number) =>
      new Promise<Buffer[]>((resolve) => {
        const got: Buffer[] = [];
        s.on('data', (d: Buffer) => got.push(d));
        s.on('close', () => resolve(got));
        s.write(Buffer.from([value]));
        if (stallMs) {
          s.pause();
          setTimeout(() => s.resume(), stallMs);
        }
      });
    const downloads = await Promise.all([0, 1, 2, 3].map(() => openTunnel(senders.port)));
    const uploads = await Promise.all([0, 1, 2, 3].map(() => openTunnel(checker.port)));
    const sending = uploads.map(async (s, i) => {
      const chunk = Buffer.alloc(64 * 1024, 0x61 + i);
      for (let sent = 0; sent < bytes / 2; sent += chunk.length) if (!s.write(chunk)) await once(s, 'drain');
      s.end();
      await closed(s);
    });
    const received = await Promise.all(downloads.map((s, i) => receive(s, 0x41 + i, i === 0 ? 300 : 0)));
    await Promise.all(sending);
    const values = received.map((chunks) => {
      const all = Buffer.concat(chunks);
      expect(all.length).toBe(bytes);
      return new Set(all).size === 1 ? String.fromCharCode(all[0]!) : 'mixed';
    });
    expect(values.sort()).toEqual(['A', 'B', 'C', 'D']);
    expect(mixed).toEqual([]);
    senders.server.close();
    checker.server.close();
  });

  it('closes tunnels that stay idle past the idle timeout, and keeps busy ones', async () => {
    // The busy tunnel writes every 100 ms; the margin to the timeout absorbs a loaded machine's timer delays.
    const quick = await startGateway(stack.server, { idleTimeoutMs: 1500 });
    const port = (quick.server.address() as AddressInfo).port;
    try {
      const open = (p: number) => {
        const s = connect({ host: '127.0.0.1', port });
        s.write(`CONNECT 127.0.0.1:${p} HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`);
        return s;
      };
      const echo = await tcpTarget((s) => s.pipe(s));
      const idle = open(echo.port);
      const busy = open(echo.port);
      busy.on('data', () => undefined);
      const ticker = setInterval(() => busy.write('.'), 100);
      const t0 = Date.now();
      idle.resume(); // read (and drop) the 200, so the close is seen
      await closed(idle);
      expect(Date.now() - t0).toBeLessThan(6000);
      expect(busy.destroyed).toBe(false);
      clearInterval(ticker);
      busy.destroy();
      echo.server.close();
    } finally {
      await quick.close();
    }
  });

  it('refuses private destinations unless allowed, after resolving the name', async () => {
    const strict = await startGateway(stack.server, { allowPrivate: false });
    const port = (strict.server.address() as AddressInfo).port;
    try {
      const name = `${u.username()}:${u.proxyPassword}`;
      for (const host of ['127.0.0.1', 'localhost', '169.254.169.254', '10.1.2.3', '[::1]']) {
        const r = await curl(['-x', `http://127.0.0.1:${port}`, '-U', name, `http://${host}:${target.port}/hello`]);
        expect(r.status, host).toBe(403);
        expect(r.stdout).toMatch(/is a private address/);
        const tunnel = await curl(['-p', '-x', `http://127.0.0.1:${port}`, '-U', name, `http://${host}:${target.port}/hello`]);
        expect(tunnel.stderr, host).toMatch(/CONNECT tunnel failed, response 403/);
      }
      const socks = await SocksClient.createConnection({
        proxy: { host: '127.0.0.1', port, type: 5, userId: u.username(), password: u.proxyPassword },
        command: 'connect',
        destination: { host: 'localhost', port: target.port },
      }).catch((e: Error) => e);
      expect((socks as Error).message).toMatch(/NotAllowed/);
    } finally {
      await strict.close();
    }
  });

  it('returns to its file-descriptor baseline after 1,000 connections', async () => {
    // On PostgreSQL the server's pool (in this same process) may open connections lazily under the
    // load the gateway's reports and leases add: those are not the gateway's, so they are counted out.
    const poolConnections = async () => {
      if (stack.server.database.driver !== 'postgres') return 0;
      const [row] = await stack.server.database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(sql`pg_stat_activity`)
        .where(sql`datname = current_database() and pid <> pg_backend_pid()`);
      return Number(row!.n) + 1;
    };
    const openFds = async () => (await openProcessFds()) - (await poolConnections());
    await stillServes();
    await stack.gateway.flush();
    const baseline = await openFds();
    const one = async (i: number) => {
      if (i % 4 === 3) {
        // a quarter of them are garbage
        await rawExchange(stack.port, [Buffer.from('garbage\r\n\r\n')]);
        return;
      }
      const s = await openTunnel(target.port);
      const body: Buffer[] = [];
      s.on('data', (d: Buffer) => body.push(d));
      s.write('GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n');
      await closed(s);
      expect(Buffer.concat(body).toString()).toContain('hello from target');
    };
    // A connection that stalls fails with what it was (this test once hung to its 60 s timeout on a
    // loaded CI machine, telling nothing), not with the file's timeout.
    const within = (i: number) =>
      Promise.race([
        one(i).catch((err: Error) => {
          throw new Error(`connection ${i} (${i % 4 === 3 ? 'garbage' : 'tunnel'}) failed: ${err.message}; gateway ${JSON.stringify(stack.gateway.stats())}`);
        }),
        new Promise<never>((_, reject) => {
          const t = setTimeout(
            () =>
              reject(
                new Error(
                  `connection ${i} (${i % 4 === 3 ? 'garbage' : 'tunnel'}) did not finish within 20 s; gateway ${JSON.stringify(stack.gateway.stats())}`,
                ),
              ),
            20_000,
          );
          t.unref();
        }),
      ]);
    for (let batch = 0; batch < 10; batch++) await Promise.all(Array.from({ length: 100 }, (_, i) => within(batch * 100 + i)));
    // Let the last closes propagate through both sides.
    for (let i = 0; i < 200 && (stack.gateway.stats().connections > 0 || (await openFds()) > baseline + 2); i++) await new Promise((r) => setTimeout(r, 100));
    expect(stack.gateway.stats()).toMatchObject({ connections: 0, tunnels: 0 });
    expect(await openFds()).toBeLessThanOrEqual(baseline + 2);
  });
});
