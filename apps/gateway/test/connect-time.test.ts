/**
 * A record's connectMs: from the client's request (the CONNECT line, the SOCKS5 request, a forwarded
 * request's head) to the target, or the upstream's tunnel, accepting; null for a connection that
 * never reached a target. Real sockets through the gateway to a local target and a slow upstream.
 */
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { SocksClient } from 'socks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../src/gateway';
import { basic, closeAll, startGateway, startStackAndTarget, userWithCredits, type ProxyUser, type Stack, type Target } from './helpers';

const MiB = 1024n * 1024n;
let stack: Stack;
let target: Target;

beforeAll(async () => ({ stack, target } = await startStackAndTarget()));
afterAll(() => closeAll(stack, target));

interface Row {
  protocol: string;
  target: string;
  outcome: string;
  connectMs: number | null;
}

/** Everything the socket receives until it closes. */
function drain(s: Socket): Promise<string> {
  let text = '';
  s.on('data', (d: Buffer) => (text += d.toString('latin1')));
  s.on('error', () => undefined);
  return new Promise((resolve) => s.once('close', () => resolve(text)));
}

/** A CONNECT tunnel through `port`: one request over it, its whole answer. */
async function throughTunnel(u: ProxyUser, port: number, to: string): Promise<string> {
  const s = connect({ host: '127.0.0.1', port });
  const done = drain(s);
  s.write(`CONNECT ${to} HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`);
  const [first] = (await once(s, 'data')) as [Buffer];
  if (first.toString('latin1').startsWith('HTTP/1.1 200')) s.write(`GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
  return first.toString('latin1') + (await done);
}

/** The user's records once `n` have been reported by `gateway`. */
async function records(u: ProxyUser, n: number, gateway: Gateway = stack.gateway): Promise<Row[]> {
  for (let i = 0; ; i++) {
    await gateway.flush();
    const r = await u.client.get<{ connections: Row[] }>('/api/connections');
    expect(r.status).toBe(200);
    if (r.body.connections.length >= n || i === 40) return r.body.connections;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a connection's connect time", () => {
  it('is measured for CONNECT, SOCKS5 and each forwarded request that reached its target, and null for one that did not', async () => {
    const u = await userWithCredits(stack.server, 16n * MiB);
    expect(await throughTunnel(u, stack.port, `127.0.0.1:${target.port}`)).toContain('hello from target');
    const s = (
      await SocksClient.createConnection({
        proxy: { host: '127.0.0.1', port: stack.port, type: 5, userId: u.username(), password: u.proxyPassword },
        command: 'connect',
        destination: { host: '127.0.0.1', port: target.port },
      })
    ).socket;
    const sDone = drain(s);
    s.write(`GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
    expect(await sDone).toContain('hello from target');
    // Two requests on one kept connection: the second is sent on the origin connection the first opened.
    const h = connect({ host: '127.0.0.1', port: stack.port });
    const hDone = drain(h);
    const auth = `Proxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n`;
    h.write(`GET ${target.url}/hello HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\n${auth}\r\n`);
    h.write(`GET ${target.url}/hello HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\n${auth}Connection: close\r\n\r\n`);
    expect((await hDone).match(/hello from target/g)).toHaveLength(2);
    // Nothing listens on port 1: the target refuses, never reached.
    expect(await throughTunnel(u, stack.port, '127.0.0.1:1')).toMatch(/^HTTP\/1\.1 502/);

    const rows = await records(u, 5);
    expect(rows).toHaveLength(5);
    const reached = rows.filter((r) => r.outcome === 'ok');
    expect(reached.map((r) => r.protocol).sort()).toEqual(['connect', 'http', 'http', 'socks5']);
    for (const r of reached) {
      expect(Number.isInteger(r.connectMs)).toBe(true);
      expect(r.connectMs).toBeGreaterThanOrEqual(0);
      expect(r.connectMs).toBeLessThan(5000);
    }
    expect(rows.find((r) => r.target === '127.0.0.1:1')).toMatchObject({ outcome: 'target_unreachable', connectMs: null });
    // The CSV has it as its last column ('' for none).
    const csv = (await u.client.get<string>('/api/connections?format=csv')).body.trim().split('\n');
    expect(csv[0]!.split(',').at(-1)).toBe('connectMs');
    expect(csv.slice(1).filter((line) => line.endsWith(',')).length).toBe(1);
  });

  it("through an upstream, runs until the upstream's tunnel is established", async () => {
    const DELAY_MS = 300;
    // An HTTP CONNECT upstream that takes DELAY_MS to open its tunnel.
    const slow = createServer((c) => {
      c.on('error', () => undefined);
      c.once('data', (head: Buffer) => {
        const [, host, port] = /^CONNECT ([^:\s]+):(\d+)/.exec(head.toString('latin1')) ?? [];
        setTimeout(() => {
          const t = connect({ host: host!, port: Number(port) }, () => {
            c.write('HTTP/1.1 200 Connection established\r\n\r\n');
            c.pipe(t).pipe(c);
          });
          t.on('error', () => c.destroy());
        }, DELAY_MS);
      });
    });
    slow.listen(0, '127.0.0.1');
    await once(slow, 'listening');
    const gw = await startGateway(stack.server, { upstreamUrl: `http://u:p@127.0.0.1:${(slow.address() as AddressInfo).port}` });
    try {
      const u = await userWithCredits(stack.server, 16n * MiB);
      expect(await throughTunnel(u, (gw.server.address() as AddressInfo).port, `127.0.0.1:${target.port}`)).toContain('hello from target');
      const [row] = await records(u, 1, gw);
      expect(row).toMatchObject({ protocol: 'connect', outcome: 'ok' });
      expect(row!.connectMs).toBeGreaterThanOrEqual(DELAY_MS);
      expect(row!.connectMs).toBeLessThan(DELAY_MS + 3000);
    } finally {
      await gw.close();
      slow.close();
    }
  });
});
