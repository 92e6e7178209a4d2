/**
 * The bill of one connection: a CONNECT's `200` and every forwarded response carry
 * `X-ProxyHub-Connection: <id>`, the id of the connection-log record the connection will have (made
 * by the gateway when it starts), and `GET /api/connections/:id` answers that record once the
 * gateway has reported it: a 20 MiB download's record bills exactly the bytes the client counted.
 * Another user's id, an unknown one and a malformed one are 404s.
 */
import { connect, type Socket } from 'node:net';
import type { ConnectionRow } from '@proxyhub/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, closeAll, rawExchange, startStackAndTarget, tunnelAnswered, userWithCredits, type ProxyUser, type Stack, type Target } from './helpers';

const MiB = 1024 * 1024;
const ID = /^[0-9a-f]{32}$/;
let stack: Stack;
let target: Target;
let user: ProxyUser;

beforeAll(async () => {
  ({ stack, target } = await startStackAndTarget());
  user = await userWithCredits(stack.server, 200n * BigInt(MiB));
});
afterAll(() => closeAll(stack, target));

/** A CONNECT tunnel: the id its 200 named, and the socket. */
async function tunnel(u: ProxyUser): Promise<{ id: string | undefined; socket: Socket }> {
  const { socket, head } = await tunnelAnswered(connect(stack.port, '127.0.0.1'), target.port, u.username(), u.proxyPassword);
  return { id: /\r\nX-ProxyHub-Connection: (\S+)/i.exec(head)?.[1], socket };
}

/** The record of a connection, once its gateway has reported it. */
async function record(u: ProxyUser, id: string): Promise<ConnectionRow> {
  await expect.poll(() => stack.gateway.stats().tunnels).toBe(0);
  await stack.gateway.flush();
  const r = await u.client.get<{ connection: ConnectionRow }>(`/api/connections/${id}`);
  expect(r.status).toBe(200);
  return r.body.connection;
}

describe('X-ProxyHub-Connection and GET /api/connections/:id', () => {
  it("a CONNECT's 200 names the record; a 20 MiB download's record bills the bytes the client counted", async () => {
    const { id, socket } = await tunnel(user);
    expect(id).toMatch(ID);
    const request = `GET /download?bytes=${20 * MiB} HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nConnection: close\r\n\r\n`;
    let received = 0;
    await new Promise<void>((resolve) => {
      socket.on('data', (d: Buffer) => (received += d.length));
      socket.on('close', () => resolve());
      socket.write(request);
    });
    expect(received).toBeGreaterThan(20 * MiB);

    const c = await record(user, id!);
    // The same record by its UUID spelling, as the log lists it.
    expect(c.id.replaceAll('-', '')).toBe(id);
    expect(c).toMatchObject({ protocol: 'connect', target: `127.0.0.1:${target.port}`, outcome: 'ok', proxyUserId: user.proxyUserId });
    expect(BigInt(c.bytesDown)).toBe(BigInt(received));
    expect(BigInt(c.bytesUp)).toBe(BigInt(Buffer.byteLength(request)));
    expect(BigInt(c.billedBytes)).toBe(BigInt(received + Buffer.byteLength(request)));
    expect((await user.client.get<{ connection: ConnectionRow }>(`/api/connections/${c.id}`)).body.connection).toEqual(c);
  });

  it('every forwarded response names its own request’s record', async () => {
    const head = (path: string, close = false) =>
      `GET ${target.url}${path} HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nProxy-Authorization: ${basic(user.username(), user.proxyPassword)}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
    // Two requests on one keep-alive connection: two records, two ids.
    const answer = (await rawExchange(stack.port, [Buffer.from(head('/hello') + head('/download?bytes=5000', true))])).data.toString('latin1');
    const ids = [...answer.matchAll(/\r\nX-ProxyHub-Connection: (\S+)\r\n/g)].map((m) => m[1]!);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(ID);
    const [hello, download] = [await record(user, ids[0]!), await record(user, ids[1]!)];
    expect(hello).toMatchObject({ protocol: 'http', outcome: 'ok' });
    expect(download).toMatchObject({ protocol: 'http', outcome: 'ok' });
    // The second response as the origin sent it (its head and 5,000 bytes) is billed down; the
    // header we added to it is not.
    const second = answer.slice(answer.indexOf('HTTP/1.1', 1));
    const ours = `X-ProxyHub-Connection: ${ids[1]}\r\n`;
    expect(BigInt(download.bytesDown)).toBe(BigInt(Buffer.byteLength(second, 'latin1') - ours.length));
    expect(BigInt(download.billedBytes)).toBe(BigInt(download.bytesUp) + BigInt(download.bytesDown));
  });

  it("is 404 for another user's record, an unknown id and a malformed one", async () => {
    const { id, socket } = await tunnel(user);
    socket.end();
    await record(user, id!);
    const other = await userWithCredits(stack.server, BigInt(MiB));
    for (const [who, asked] of [
      [other, id!],
      [user, 'f'.repeat(32)],
      [user, 'not-an-id'],
      [user, `${id!}0`],
    ] as const) {
      const r = await who.client.get<{ error: string }>(`/api/connections/${asked}`);
      expect({ asked, status: r.status, body: r.body }).toEqual({ asked, status: 404, body: expect.objectContaining({ error: 'Connection not found' }) });
    }
  });
});
