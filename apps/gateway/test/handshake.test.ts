// Clients that do not wait for each answer: a handshake and the first tunnel bytes in one write
// (SOCKS5 and CONNECT), and a forwarded request with more bytes than its Content-Length. The target
// gets exactly the tunnel's bytes, or exactly the request and its body.
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startStack, userWithCredits, type ProxyUser, type Stack } from './helpers';

let stack: Stack;
let u: ProxyUser;
let target: Awaited<ReturnType<typeof recordingTarget>>;

/** A raw TCP target that keeps what each connection sent and answers every read with the total so far. */
async function recordingTarget() {
  const conns: Array<{ received: Buffer; closed: Promise<unknown> }> = [];
  const server = createServer((s: Socket) => {
    const c = { received: Buffer.alloc(0), closed: once(s, 'close') };
    conns.push(c);
    s.on('error', () => undefined);
    s.on('data', (d: Buffer) => {
      c.received = Buffer.concat([c.received, d]);
      s.write(`got ${c.received.length}\n`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, conns, close: () => server.close() };
}

/** Writes `bytes` at once; resolves what came back up to and including `until`. */
function exchange(bytes: Buffer, until: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: stack.port });
    let got = Buffer.alloc(0);
    s.on('error', reject);
    s.on('close', () => reject(new Error(`closed after ${JSON.stringify(got.toString('latin1'))}`)));
    s.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.includes(until)) {
        s.removeAllListeners('close');
        s.destroy();
        resolve(got);
      }
    });
    s.write(bytes);
  });
}

beforeAll(async () => {
  stack = await startStack();
  target = await recordingTarget();
  u = await userWithCredits(stack.server, 10n * 1024n * 1024n);
});
afterAll(async () => {
  await stack?.close();
  target?.close();
});

describe('pipelined handshakes', () => {
  it('SOCKS5: greeting, login, request and the first tunnel bytes in one write', async () => {
    const name = Buffer.from(u.username());
    const pass = Buffer.from(u.proxyPassword);
    const bytes = Buffer.concat([
      Buffer.from([5, 1, 2]),
      Buffer.from([1, name.length]),
      name,
      Buffer.from([pass.length]),
      pass,
      Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, target.port >> 8, target.port & 0xff]),
      Buffer.from('ping'),
    ]);
    const got = await exchange(bytes, 'got 4\n');
    expect([...got.subarray(0, 14)]).toEqual([5, 2, 1, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect(got.subarray(14).toString()).toBe('got 4\n');
    const conn = target.conns.at(-1)!;
    await conn.closed;
    expect(conn.received.toString()).toBe('ping');
  });

  it('CONNECT: the request head and the first tunnel bytes in one write', async () => {
    const head = `CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`;
    const got = await exchange(Buffer.from(`${head}ping`), 'got 4\n');
    expect(got.toString('latin1')).toMatch(/^HTTP\/1\.1 200 Connection Established\r\nX-ProxyHub-Connection: [0-9a-f]{32}\r\n\r\ngot 4\n$/);
    const conn = target.conns.at(-1)!;
    await conn.closed;
    expect(conn.received.toString()).toBe('ping');
  });

  it('HTTP forward: the origin gets the rewritten head and Content-Length bytes of body, nothing beyond', async () => {
    const request = `POST http://127.0.0.1:${target.port}/form?a=1 HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nContent-Length: 4\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\nProxy-Connection: keep-alive\r\n\r\nbodyEXTRA`;
    // The client keeps its connection (HTTP/1.1): so does the gateway's to the origin, without a Connection header.
    const expected = `POST /form?a=1 HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nContent-Length: 4\r\n\r\nbody`;
    await exchange(Buffer.from(request), `got ${expected.length}\n`);
    const conn = target.conns.at(-1)!;
    await conn.closed;
    expect(conn.received.toString('latin1')).toBe(expected);
  });
});
