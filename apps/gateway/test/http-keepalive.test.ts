// HTTP forwarding with persistent client connections: many requests per connection, answered in
// order, each one authorised and metered; the connection to the origin kept between them.
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  balances,
  basic,
  expectLedgerHolds,
  hourlyUsage,
  socketClosed,
  startGateway,
  startStack,
  userWithCredits,
  type ProxyUser,
  type Stack,
} from './helpers';

const KiB = 1024;
const MiB = 1024 * KiB;
let stack: Stack;
let origin: Awaited<ReturnType<typeof startOrigin>>;

/**
 * A loopback origin: /bytes?n=N answers N bytes, /chunked a chunked body, /echo what it was sent
 * (length, hash, framing, headers), /empty 204, /not-modified 304, anything else a line. Keeps
 * each connection's byte counts, to compare with what was billed.
 */
async function startOrigin(keepAliveTimeoutMs = 5000) {
  const sockets: Socket[] = [];
  const closed: Array<{ read: number; written: number }> = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://origin');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      switch (url.pathname) {
        case '/bytes': {
          const n = Number(url.searchParams.get('n'));
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': n });
          res.end(Buffer.alloc(n, url.searchParams.get('fill') ?? 'x'));
          return;
        }
        case '/chunked':
          res.write('a'.repeat(1000));
          res.write('b'.repeat(10));
          res.end('c');
          return;
        case '/echo':
          res.setHeader('content-type', 'application/json');
          res.end(
            JSON.stringify({
              method: req.method,
              url: req.url,
              length: body.length,
              sha256: createHash('sha256').update(body).digest('hex'),
              headers: req.headers,
            }),
          );
          return;
        case '/empty':
          res.writeHead(204);
          res.end();
          return;
        case '/not-modified':
          res.writeHead(304, { etag: '"x"' });
          res.end();
          return;
        default:
          res.end(`hello ${req.method} ${url.pathname}\n`);
      }
    });
  });
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.on('connection', (s: Socket) => {
    sockets.push(s);
    s.on('close', () => closed.push({ read: s.bytesRead, written: s.bytesWritten }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    sockets,
    closed,
    /** Resolves when every connection so far has closed; their byte counts, summed. */
    async allClosed() {
      while (closed.length < sockets.length) await new Promise((r) => setTimeout(r, 10));
      return closed.reduce((t, c) => ({ read: t.read + c.read, written: t.written + c.written }), { read: 0, written: 0 });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** One username per user: a new session token would pick a new exit, and so a new origin connection. */
const nameOf = (u: ProxyUser) => u.username({ country: 'US' }, 60, 'KEEPALV1');

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  reused: boolean;
}

/** One request through the gateway with Node's HTTP client (absolute URI, Proxy-Authorization). */
function viaGateway(
  agent: Agent,
  u: ProxyUser | null,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: Buffer | Buffer[]; password?: string } = {},
  o = origin,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${o.port}`, ...opts.headers };
    if (u) headers['proxy-authorization'] = basic(nameOf(u), opts.password ?? u.proxyPassword);
    const req = httpRequest({ host: '127.0.0.1', port: stack.port, method: opts.method ?? 'GET', path: `${o.url}${path}`, headers, agent }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts), reused: req.reusedSocket }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (Array.isArray(opts.body)) {
      // No Content-Length: Node sends the body chunked.
      for (const part of opts.body) req.write(part);
      req.end();
    } else req.end(opts.body);
  });
}

/** Reads `n` responses (Content-Length or no body) off a raw socket, in the order they come. */
function readResponses(socket: Socket, n: number, noBody: (i: number) => boolean = () => false): Promise<Array<{ head: string; body: string }>> {
  return new Promise((resolve, reject) => {
    const out: Array<{ head: string; body: string }> = [];
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.toString('latin1', 0, end);
        const length = noBody(out.length) ? 0 : Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        out.push({ head, body: buf.toString('latin1', end + 4, end + 4 + length) });
        buf = buf.subarray(end + 4 + length);
        if (out.length === n) {
          socket.off('data', onData);
          if (buf.length) socket.unshift(buf);
          return resolve(out);
        }
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

async function rawSocket(): Promise<Socket> {
  const s = connect({ host: '127.0.0.1', port: stack.port });
  await once(s, 'connect');
  return s;
}

const get = (u: ProxyUser, path: string, extra = '', version = '1.1') =>
  `GET ${origin.url}${path} HTTP/${version}\r\nHost: 127.0.0.1:${origin.port}\r\nProxy-Authorization: ${basic(nameOf(u), u.proxyPassword)}\r\n${extra}\r\n`;

beforeAll(async () => {
  stack = await startStack({ meter: { initialLeaseBytes: 256 * KiB, minLeaseBytes: 128 * KiB, emptyRetryMs: 100 } });
  origin = await startOrigin();
});
afterAll(async () => {
  await stack?.close();
  await origin?.close();
});

describe('HTTP forward with keep-alive', () => {
  it('serves 100 requests over one client connection and one origin connection, in order, each one metered', async () => {
    const u = await userWithCredits(stack.server, 64n * BigInt(MiB));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const connsBefore = origin.sockets.length;
    let bodies = 0;
    for (let i = 0; i < 100; i++) {
      if (i % 10 === 9) {
        const body = randomBytes(1000 + i * 100);
        const r = await viaGateway(agent, u, `/echo?i=${i}`, { method: 'POST', body });
        expect([r.status, r.reused]).toEqual([200, true]);
        const echo = JSON.parse(r.body.toString()) as { url: string; length: number; sha256: string; headers: Record<string, string> };
        expect(echo).toMatchObject({ url: `/echo?i=${i}`, length: body.length, sha256: createHash('sha256').update(body).digest('hex') });
        // Proxy and hop-by-hop headers stay with the gateway.
        expect(echo.headers['proxy-authorization']).toBeUndefined();
        expect(echo.headers.connection).toBeUndefined();
        bodies += body.length + r.body.length;
      } else {
        const n = 1 + ((i * 997) % 20_000);
        const fill = String.fromCharCode(97 + (i % 26));
        const r = await viaGateway(agent, u, `/bytes?n=${n}&fill=${fill}`);
        expect([r.status, r.reused]).toEqual([200, i > 0]);
        expect(r.body.equals(Buffer.alloc(n, fill))).toBe(true);
        bodies += n;
      }
    }
    expect(origin.sockets.length - connsBefore).toBe(1);
    agent.destroy();
    const moved = await origin.allClosed();
    await stack.gateway.flush();
    // Billed: exactly the bytes the origin read (the rewritten heads and bodies) and wrote.
    const usage = await hourlyUsage(stack.server, u.userId);
    expect(usage).toEqual({ up: moved.read, down: moved.written, sessions: 1 });
    expect(usage.up + usage.down).toBeGreaterThan(bodies);
    await expectLedgerHolds(stack.server, u.userId);
  });

  it('answers pipelined requests in order, whatever their sizes', async () => {
    const u = await userWithCredits(stack.server, 16n * BigInt(MiB));
    const s = await rawSocket();
    s.write(get(u, '/bytes?n=300000&fill=q') + get(u, '/hello') + get(u, '/bytes?n=7&fill=z'));
    const [a, b, c] = await readResponses(s, 3);
    expect(a!.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(a!.body).toBe('q'.repeat(300_000));
    expect(b!.body).toBe('hello GET /hello\n');
    expect(c!.body).toBe('zzzzzzz');
    s.destroy();
  });

  it('forwards POST bodies exactly, with Content-Length and chunked, and carries on after them', async () => {
    const u = await userWithCredits(stack.server, 64n * BigInt(MiB));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const big = randomBytes(3 * MiB + 17);
    const a = JSON.parse((await viaGateway(agent, u, '/echo', { method: 'POST', body: big })).body.toString()) as Record<string, unknown>;
    expect(a).toMatchObject({ method: 'POST', length: big.length, sha256: createHash('sha256').update(big).digest('hex') });
    const parts = [randomBytes(10), randomBytes(70_000), randomBytes(1), randomBytes(5000)];
    const all = Buffer.concat(parts);
    const reply = await viaGateway(agent, u, '/echo', { method: 'PUT', body: parts });
    expect(reply.reused).toBe(true);
    const b = JSON.parse(reply.body.toString()) as { length: number; sha256: string; headers: Record<string, string> };
    expect(b).toMatchObject({ length: all.length, sha256: createHash('sha256').update(all).digest('hex') });
    expect(b.headers['transfer-encoding']).toBe('chunked');
    const after = await viaGateway(agent, u, '/hello');
    expect([after.status, after.reused, after.body.toString()]).toEqual([200, true, 'hello GET /hello\n']);
    agent.destroy();
  });

  it('relays HEAD, 204, 304 and chunked responses and keeps the connection', async () => {
    const u = await userWithCredits(stack.server, 16n * BigInt(MiB));
    const s = await rawSocket();
    s.write(
      `HEAD ${origin.url}/hello HTTP/1.1\r\nHost: o\r\nProxy-Authorization: ${basic(nameOf(u), u.proxyPassword)}\r\n\r\n` +
        get(u, '/empty') +
        get(u, '/not-modified') +
        get(u, '/hello'),
    );
    const replies = await readResponses(s, 4, (i) => i < 3);
    expect(replies.map((r) => r.head.split('\r\n')[0])).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 204 No Content', 'HTTP/1.1 304 Not Modified', 'HTTP/1.1 200 OK']);
    expect(replies[3]!.body).toBe('hello GET /hello\n');
    s.destroy();

    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const chunked = await viaGateway(agent, u, '/chunked');
    expect(chunked.headers['transfer-encoding']).toBe('chunked');
    expect(chunked.body.toString()).toBe(`${'a'.repeat(1000)}${'b'.repeat(10)}c`);
    const next = await viaGateway(agent, u, '/hello');
    expect([next.status, next.reused]).toEqual([200, true]);
    agent.destroy();
  });

  it('honours Connection: close and HTTP/1.0: the origin is told, the connection ends after the answer', async () => {
    const u = await userWithCredits(stack.server, 16n * BigInt(MiB));
    for (const [extra, version] of [
      ['Connection: close\r\n', '1.1'],
      ['Proxy-Connection: close\r\n', '1.1'],
      ['', '1.0'],
    ] as const) {
      const s = await rawSocket();
      const parts: Buffer[] = [];
      s.on('data', (d: Buffer) => parts.push(d));
      s.write(get(u, '/echo', extra, version) + get(u, '/hello'));
      await socketClosed(s);
      // One answer (close-delimited for HTTP/1.0), the request after it not served.
      const all = Buffer.concat(parts).toString('latin1');
      expect(all).toMatch(/^HTTP\/1\.1 200 /);
      expect(all.match(/HTTP\/1\.1 /g)).toHaveLength(1);
      const echo = JSON.parse(all.slice(all.indexOf('\r\n\r\n') + 4)) as { headers: Record<string, string> };
      expect(echo.headers.connection).toBe('close');
    }
  });

  it('checks every request: other credentials bill their own account, wrong ones get a 407', async () => {
    const a = await userWithCredits(stack.server, 16n * BigInt(MiB));
    const b = await userWithCredits(stack.server, 16n * BigInt(MiB));
    const s = await rawSocket();
    const closed = socketClosed(s);
    s.write(get(a, '/bytes?n=1000') + get(b, '/bytes?n=3000') + get(a, '/bytes?n=1000'));
    const replies = await readResponses(s, 3);
    expect(replies.map((r) => r.body.length)).toEqual([1000, 3000, 1000]);
    s.write(`GET ${origin.url}/hello HTTP/1.1\r\nHost: o\r\nProxy-Authorization: ${basic(nameOf(a), 'WrongPassword1')}\r\n\r\n`);
    const [refused] = await readResponses(s, 1);
    expect(refused!.head).toMatch(/^HTTP\/1\.1 407 /);
    await closed;
    await stack.gateway.flush();
    const [ua, ub] = [await hourlyUsage(stack.server, a.userId), await hourlyUsage(stack.server, b.userId)];
    expect(ub.down).toBeGreaterThan(3000);
    expect(ub.down).toBeLessThan(3500);
    expect(ua.down).toBeGreaterThan(2000);
    expect(ua.down).toBeLessThan(3000);
    expect(ua.sessions + ub.sessions).toBe(3);
  });

  it('cuts a keep-alive connection off when the credit runs out; the next request gets the 402', async () => {
    const credits = 2n * BigInt(MiB);
    const u = await userWithCredits(stack.server, credits);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let received = 0;
    let last: Reply | Error | null = null;
    for (let i = 0; i < 100; i++) {
      last = await viaGateway(agent, u, '/bytes?n=100000').catch((err: Error) => err);
      if (last instanceof Error || last.status !== 200) break;
      received += last.body.length;
    }
    // Either cut mid-response (the connection closes) or refused at the next request.
    if (!(last instanceof Error)) expect(last?.status).toBe(402);
    expect(received).toBeGreaterThan(1.5 * MiB);
    const after = await viaGateway(new Agent(), u, '/hello');
    expect(after.status).toBe(402);
    expect(after.body.toString()).toMatch(/^Out of data: top up at /);
    agent.destroy();
    await stack.gateway.flush();
    expect(await balances(u)).toEqual({ credits: 0n, usage: credits });
    await expectLedgerHolds(stack.server, u.userId);
  });

  it('opens a new origin connection when the origin closed the kept one, unnoticed by the client', async () => {
    const quick = await startOrigin(100);
    try {
      const u = await userWithCredits(stack.server, 16n * BigInt(MiB));
      const s = await rawSocket();
      const request = `GET ${quick.url}/hello HTTP/1.1\r\nHost: o\r\nProxy-Authorization: ${basic(nameOf(u), u.proxyPassword)}\r\n\r\n`;
      s.write(request);
      const [first] = await readResponses(s, 1);
      // Node closes an idle connection a second after its keepAliveTimeout.
      while (quick.closed.length === 0) await new Promise((r) => setTimeout(r, 50));
      s.write(request);
      const [second] = await readResponses(s, 1);
      expect([first!.body, second!.body]).toEqual(['hello GET /hello\n', 'hello GET /hello\n']);
      expect(quick.sockets.length).toBe(2);
      // Another origin on the same client connection: a connection of its own.
      s.write(get(u, '/hello'));
      const [other] = await readResponses(s, 1);
      expect(other!.body).toBe('hello GET /hello\n');
      s.destroy();
    } finally {
      await quick.close();
    }
  });

  it('sends a GET again on a new connection when the kept one closes unanswered; never a POST', async () => {
    // An origin that answers the first request of each connection and drops the connection at the second.
    const server = createNetServer((c) => {
      let seen = 0;
      let buf = '';
      c.on('error', () => undefined);
      c.on('data', (d: Buffer) => {
        buf += d.toString('latin1');
        while (buf.includes('\r\n\r\n')) {
          buf = buf.slice(buf.indexOf('\r\n\r\n') + 4);
          if (++seen === 2) return void c.destroy();
          c.write('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n');
        }
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    try {
      const u = await userWithCredits(stack.server, 16n * BigInt(MiB));
      const s = await rawSocket();
      const req = (method: string) =>
        `${method} http://127.0.0.1:${port}/ HTTP/1.1\r\nHost: o\r\nProxy-Authorization: ${basic(nameOf(u), u.proxyPassword)}\r\n\r\n`;
      s.write(req('GET'));
      s.write(req('GET'));
      const replies = await readResponses(s, 2);
      expect(replies.map((r) => r.body)).toEqual(['ok\n', 'ok\n']);
      // The retried GET opened a second connection; a POST is not sent twice: the client sees the end.
      const parts: Buffer[] = [];
      s.on('data', (d: Buffer) => parts.push(d));
      s.write(req('POST'));
      await socketClosed(s);
      expect(Buffer.concat(parts).length).toBe(0);
    } finally {
      server.close();
    }
  });

  it('takes a CONNECT after forwarded requests on the same connection', async () => {
    const u = await userWithCredits(stack.server, 16n * BigInt(MiB));
    const s = await rawSocket();
    s.write(get(u, '/hello'));
    const [r] = await readResponses(s, 1);
    expect(r!.body).toBe('hello GET /hello\n');
    s.write(`CONNECT 127.0.0.1:${origin.port} HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`);
    const [tunnel] = await readResponses(s, 1, () => true);
    expect(tunnel!.head).toMatch(/^HTTP\/1\.1 200 Connection Established\r\nX-ProxyHub-Connection: [0-9a-f]{32}$/);
    s.write('GET /tunnelled HTTP/1.1\r\nHost: o\r\n\r\n');
    const [inside] = await readResponses(s, 1);
    expect(inside!.body).toBe('hello GET /tunnelled\n');
    s.destroy();
  });

  it('closes a connection whose next request head does not come whole within the handshake deadline', async () => {
    const u = await userWithCredits(stack.server, 16n * BigInt(MiB));
    const gateway = await startGateway(stack.server, { handshakeTimeoutMs: 400 });
    try {
      const s = connect({ host: '127.0.0.1', port: (gateway.server.address() as AddressInfo).port });
      s.write(get(u, '/hello'));
      await readResponses(s, 1);
      // Idle between requests is fine (the idle timeout is minutes)...
      await new Promise((r) => setTimeout(r, 800));
      s.write(get(u, '/hello'));
      await readResponses(s, 1);
      // ...a head that does not come whole is not.
      s.write('GET http://127.0.0.1/ HTTP/1.1\r\nX-Slow: ');
      const t0 = Date.now();
      await socketClosed(s);
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(gateway.stats().tunnels).toBe(0);
    } finally {
      await gateway.close();
    }
  });
});
