import { connect, type Socket } from 'node:net';
import { SocksClient } from 'socks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, balances, basic, closeAll, SMALL_LEASES, startStackAndTarget, userWithCredits, type ProxyUser, type Stack, type Target } from './helpers';

const MiB = 1024 * 1024;
let stack: Stack;
let target: Target;

beforeAll(async () => ({ stack, target } = await startStackAndTarget({ meter: SMALL_LEASES })));
afterAll(() => closeAll(stack, target));

interface Row {
  id: string;
  protocol: string;
  target: string;
  proxyUserId: string;
  country: string;
  session: string;
  bytesUp: string;
  bytesDown: string;
  billedBytes: string;
  outcome: string;
  reason: string;
}

async function log(u: ProxyUser, query = ''): Promise<{ connections: Row[]; nextCursor: string | null }> {
  const r = await u.client.get<{ connections: Row[]; nextCursor: string | null }>(`/api/connections${query}`);
  expect(r.status).toBe(200);
  return r.body;
}

/** Everything the socket receives until it closes. */
function drain(s: Socket): Promise<number> {
  let n = 0;
  s.on('data', (d: Buffer) => (n += d.length));
  s.on('error', () => undefined);
  return new Promise((resolve) => s.once('close', () => resolve(n)));
}

function connectTunnel(u: ProxyUser, port = target.port): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: stack.port });
    s.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`);
    s.once('data', (d: Buffer) => {
      const end = d.indexOf('\r\n\r\n');
      if (!d.toString('latin1', 0, end).startsWith('HTTP/1.1 200')) return reject(new Error(d.toString()));
      if (d.length > end + 4) s.unshift(d.subarray(end + 4));
      resolve(s);
    });
    s.on('error', reject);
  });
}

/** The log once the gateway has seen `n` connections of the user end (a client's close reaches the gateway a moment later). */
async function settled(u: ProxyUser, n: number) {
  for (let i = 0; ; i++) {
    await stack.gateway.flush();
    const page = await log(u);
    if (page.connections.length >= n || i === 40) return page;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sumBilled = (rows: Row[]) => rows.reduce((a, r) => a + BigInt(r.billedBytes), 0n);

describe('connection log', () => {
  it('one record per CONNECT tunnel, SOCKS5 connection and keep-alive request; billed bytes add up to the bill exactly', async () => {
    const u = await userWithCredits(stack.server, 64n * BigInt(MiB));
    // CONNECT
    const t = await connectTunnel(u);
    const tDone = drain(t);
    t.write(`GET /download?bytes=${300 * 1024} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
    await tDone;
    // SOCKS5
    const s = (
      await SocksClient.createConnection({
        proxy: { host: '127.0.0.1', port: stack.port, type: 5, userId: u.username({ country: 'US' }, 0), password: u.proxyPassword },
        command: 'connect',
        destination: { host: '127.0.0.1', port: target.port },
      })
    ).socket;
    const sDone = drain(s);
    s.write(`GET /download?bytes=${200 * 1024} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
    await sDone;
    // HTTP forward, two requests on one kept connection
    const h = connect({ host: '127.0.0.1', port: stack.port });
    const hDone = drain(h);
    const auth = `Proxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n`;
    h.write(`GET ${target.url}/download?bytes=1000&secret=yes HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\n${auth}\r\n`);
    h.write(`GET ${target.url}/download?bytes=2000 HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\n${auth}Connection: close\r\n\r\n`);
    await hDone;
    // A target that refuses: never reached, billed 0
    const refused = connect({ host: '127.0.0.1', port: stack.port });
    const rDone = drain(refused);
    refused.write(`CONNECT 127.0.0.1:1 HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`);
    await rDone;

    const { connections, nextCursor } = await settled(u, 5);
    expect(nextCursor).toBeNull();
    expect(connections).toHaveLength(5);
    const by = (p: string) => connections.filter((c) => c.protocol === p);
    expect(by('connect').map((c) => `${c.target} ${c.outcome}`)).toEqual(
      expect.arrayContaining([`127.0.0.1:${target.port} ok`, '127.0.0.1:1 target_unreachable']),
    );
    expect(by('socks5')).toEqual([expect.objectContaining({ outcome: 'ok', session: 'rotating', country: 'US', proxyUserId: u.proxyUserId })]);
    expect(by('http')).toHaveLength(2);
    for (const c of by('http')) expect(c).toMatchObject({ target: `127.0.0.1:${target.port}`, outcome: 'ok' });
    const failed = connections.find((c) => c.outcome === 'target_unreachable')!;
    expect(failed).toMatchObject({ billedBytes: '0', bytesUp: '0', bytesDown: '0' });
    expect(failed.reason).not.toBe('');
    for (const c of connections) expect(BigInt(c.billedBytes)).toBe(BigInt(c.bytesUp) + BigInt(c.bytesDown));
    // Never a path or a query.
    expect(JSON.stringify(connections)).not.toContain('secret');
    // The abuse look-up finds the relayed ones by the exit IP the gateway left from (loopback here).
    const abuse = await (
      await adminClient(stack.server)
    ).get<{ connections: Array<{ userId: string; exitIp: string; outcome: string }> }>('/admin/abuse?target=127.0.0.1&exitIp=127.0.0.1');
    const mine = abuse.body.connections.filter((c) => c.userId === u.userId);
    expect(mine.map((c) => c.outcome)).toEqual(['ok', 'ok', 'ok', 'ok']);
    const bill = await balances(u);
    expect(sumBilled(connections)).toBe(bill.usage);
    expect(bill.usage).toBeGreaterThan(500n * 1024n);

    // Filters, pages and the CSV.
    expect((await log(u, '?outcome=target_unreachable')).connections.map((c) => c.id)).toEqual([failed.id]);
    expect((await log(u, '?target=127.0.0.1:1')).connections.map((c) => c.id)).toEqual([failed.id]);
    const first = await log(u, '?pageSize=2');
    expect(first.connections).toHaveLength(2);
    const second = await log(u, `?pageSize=2&cursor=${first.nextCursor}`);
    const third = await log(u, `?pageSize=2&cursor=${second.nextCursor}`);
    expect(third.nextCursor).toBeNull();
    expect([...first.connections, ...second.connections, ...third.connections].map((c) => c.id)).toEqual(connections.map((c) => c.id));
    const csv = await u.client.get<string>('/api/connections?format=csv');
    expect(csv.status).toBe(200);
    const lines = String(csv.body).trim().split('\n');
    expect(lines[0]).toBe(
      'id,startedAt,endedAt,protocol,target,proxyUserId,proxyAccountId,country,state,city,session,zip,asn,bytesUp,bytesDown,billedBytes,outcome,reason,connectMs',
    );
    expect(lines).toHaveLength(6);
    // Bad input names its field.
    const bad = await u.client.get<{ error: string }>('/api/connections?pageSize=501');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('Page size');
  });

  it("a rotating customer's short connections, 16 at a time: one record each and every byte billed", async () => {
    const u = await userWithCredits(stack.server, 64n * BigInt(MiB));
    const rotating = u.username({ country: 'US' }, 0);
    const n = 80; // one page of the log
    let moved = 0;
    /** One short connection as a scraper makes it: a tunnel, one small request, its answer, close. */
    const short = async (i: number) => {
      let s: Socket;
      if (i % 2) {
        s = (
          await SocksClient.createConnection({
            proxy: { host: '127.0.0.1', port: stack.port, type: 5, userId: rotating, password: u.proxyPassword },
            command: 'connect',
            destination: { host: '127.0.0.1', port: target.port },
          })
        ).socket;
      } else {
        s = await connectTunnel({ ...u, username: () => rotating });
      }
      const request = `GET /download?bytes=${1000 + i} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`;
      const done = drain(s);
      s.write(request);
      const received = await done;
      moved += request.length + received;
    };
    for (let next = 0; next < n;) await Promise.all(Array.from({ length: Math.min(16, n - next) }, () => short(next++)));

    const { connections } = await settled(u, n);
    expect(connections).toHaveLength(n);
    expect(connections.filter((c) => c.outcome === 'ok' && c.session === 'rotating')).toHaveLength(n);
    expect(connections.filter((c) => c.protocol === 'socks5')).toHaveLength(n / 2);
    const bill = await balances(u);
    expect(bill.usage).toBe(BigInt(moved));
    expect(sumBilled(connections)).toBe(bill.usage);
  });

  it('a cut-off connection is recorded as cut_off with the bytes it was billed', async () => {
    const credits = 2n * BigInt(MiB);
    const u = await userWithCredits(stack.server, credits);
    const t = await connectTunnel(u);
    const done = drain(t);
    t.write(`GET /download?bytes=${8 * MiB} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
    await done;
    const { connections } = await settled(u, 1);
    expect(connections).toEqual([expect.objectContaining({ protocol: 'connect', outcome: 'cut_off' })]);
    expect(sumBilled(connections)).toBe((await balances(u)).usage);
    expect((await balances(u)).usage).toBe(credits);
  });

  it('failed connections are free: a dead origin and our own refusals are billed 0, and the admin sees the same log', async () => {
    const u = await userWithCredits(stack.server, 16n * BigInt(MiB));
    // An HTTP request to an origin that refuses: the gateway's 502 page is its own bytes.
    const h = connect({ host: '127.0.0.1', port: stack.port });
    const hDone = drain(h);
    h.write(`GET http://127.0.0.1:1/x?token=abc HTTP/1.1\r\nHost: 127.0.0.1:1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`);
    expect(await hDone).toBeGreaterThan(0);
    // Wrong password: a 407 written by us, no record (nobody proved who they are), nothing billed.
    const w = connect({ host: '127.0.0.1', port: stack.port });
    const wDone = drain(w);
    w.write(`CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), 'wrong-password')}\r\n\r\n`);
    await wDone;
    const { connections } = await settled(u, 1);
    expect(connections).toEqual([
      expect.objectContaining({ protocol: 'http', target: '127.0.0.1:1', outcome: 'target_unreachable', billedBytes: '0', bytesUp: '0', bytesDown: '0' }),
    ]);
    expect((await balances(u)).usage).toBe(0n);
    // The usage panel's breakdown reads the same log.
    const usage = await u.client.get<{ byTarget: unknown[]; byOutcome: unknown[] }>('/api/usage');
    expect(usage.status).toBe(200);
    // Never reached: none of its connections ok, no connect time.
    expect(usage.body.byTarget).toEqual([{ host: '127.0.0.1', bytes: '0', connections: 1, okRate: 0, p50ConnectMs: null }]);
    expect(usage.body.byOutcome).toEqual([{ outcome: 'target_unreachable', connections: 1 }]);

    const admin = await adminClient(stack.server);
    const seen = await admin.get<{ success: boolean; connections: Row[] }>(`/admin/users/${u.userId}/connections?outcome=target_unreachable`);
    expect(seen.status).toBe(200);
    expect(seen.body.connections.map((c) => c.id)).toEqual(connections.map((c) => c.id));
    // Only an admin: the user's own session cannot read it.
    expect((await u.client.get(`/admin/users/${u.userId}/connections`)).status).toBeGreaterThanOrEqual(401);
  });
});
