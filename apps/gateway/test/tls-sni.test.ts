import { connect as tlsConnect } from 'node:tls';
import { createServer, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clientHelloSni, peekClientHello } from '../src/protocols/tls-sni';

/** The first bytes a real TLS client (Node's) sends for `servername`. */
async function realClientHello(servername: string): Promise<Buffer> {
  return new Promise((resolve) => {
    const server = createServer((s: Socket) => {
      s.once('data', (d: Buffer) => {
        resolve(d);
        s.destroy();
        server.close();
      });
    });
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      const c = tlsConnect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false });
      c.on('error', () => undefined);
    });
  });
}

describe('clientHelloSni', () => {
  it("reads the host name of a real client's ClientHello; other bytes are not TLS", async () => {
    expect(clientHelloSni(await realClientHello('Blocked.Example.com'))).toBe('blocked.example.com');
    expect(clientHelloSni(Buffer.from('GET / HTTP/1.1\r\n\r\n'))).toBeUndefined();
    expect(clientHelloSni(Buffer.alloc(0))).toBeUndefined();
  });

  it('never throws on random or truncated input', async () => {
    const hello = await realClientHello('www.example.org');
    for (let n = 0; n < hello.length; n++) expect(() => clientHelloSni(hello.subarray(0, n))).not.toThrow();
    for (let i = 0; i < 20_000; i++) {
      const b = randomBytes(1 + (i % 600));
      if (i % 2) {
        b[0] = 22;
        b[1] = 3;
        if (b.length > 5) b[5] = 1;
      }
      expect(() => clientHelloSni(b)).not.toThrow();
    }
    // A corrupted real one: every byte flipped in turn.
    for (let i = 0; i < hello.length; i++) {
      const b = Buffer.from(hello);
      b[i] = b[i]! ^ 0xff;
      expect(() => clientHelloSni(b)).not.toThrow();
    }
  });

  it('peekClientHello: other bytes at once, a hello whole (also split over records), oversize unreadable', async () => {
    const hello = await realClientHello('blocked.example.com');
    expect(peekClientHello(Buffer.from('G'))).toEqual({ state: 'other' });
    expect(peekClientHello(Buffer.from([22, 1]))).toEqual({ state: 'other' });
    expect(peekClientHello(hello.subarray(0, 1))).toEqual({ state: 'more' });
    expect(peekClientHello(hello.subarray(0, hello.length - 1))).toEqual({ state: 'more' });
    expect(peekClientHello(hello)).toEqual({ state: 'hello', sni: 'blocked.example.com' });
    // The same handshake message in two records: the name is still read.
    const body = hello.subarray(5);
    const rec = (b: Buffer) => Buffer.concat([Buffer.from([22, 3, 1, b.length >> 8, b.length & 255]), b]);
    const split = Buffer.concat([rec(body.subarray(0, 40)), rec(body.subarray(40))]);
    expect(peekClientHello(split.subarray(0, 50))).toEqual({ state: 'more' });
    expect(peekClientHello(split)).toEqual({ state: 'hello', sni: 'blocked.example.com' });
    const huge = Buffer.from([22, 3, 1, 0x50, 0, 1, 0, 0x50, 0]);
    expect(peekClientHello(huge)).toEqual({ state: 'unreadable' });
    for (let n = 0; n <= split.length; n++) expect(() => peekClientHello(split.subarray(0, n))).not.toThrow();
  });
});
