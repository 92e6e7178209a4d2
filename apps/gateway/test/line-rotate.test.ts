/**
 * "A new IP now" across the fleet: two gateway processes on one server and one upstream pool whose
 * provider takes the session id in its username. After POST /api/lines/rotate, both gateways give
 * the line the same new session id within 5 s (the one its rotation counter derives), other lines
 * keep theirs, and the line's open connections (CONNECT, SOCKS5, HTTP forward) are closed within
 * 10 s and logged with outcome `rotated`; another line's tunnel stays open.
 */
import { connect, createServer, type Socket } from 'node:net';
import { loadLocations } from '@proxyhub/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StickySessions } from '../src/sessions';
import {
  adminClient,
  basic,
  connectTunnel,
  exchangeUntilClosed,
  INTERNAL_KEY,
  listen,
  rawExchange,
  socketClosed,
  socksConnectWrites,
  startTarget,
  startTestServer,
  userWithCredits,
  type ProxyUser,
  type TestServer,
} from './helpers';
import { startGatewayProcess, stopGatewayProcess, type GatewayProcess } from './gateway-processes';
import { startProxyChainUpstream } from './upstream-proxies';

const GiB = 1n << 30n;
let server: TestServer;
let target: Awaited<ReturnType<typeof startTarget>>;
let chain: Awaited<ReturnType<typeof startProxyChainUpstream>>;
let user: ProxyUser;
let one: GatewayProcess;
let two: GatewayProcess;

beforeAll(async () => {
  // The server builds its location index on first use: not inside a tunnel's handshake deadline.
  loadLocations();
  server = await startTestServer();
  target = await startTarget();
  user = await userWithCredits(server, GiB);
  chain = await startProxyChainUpstream('pw');
  const admin = await adminClient(server);
  const pool = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', {
    name: 'session pool',
    protocol: 'http',
    host: '127.0.0.1',
    port: chain.port,
    usernameTemplate: 'p-{country}-{session}-{sid}',
    password: 'pw',
    countries: null,
    weight: 1,
  });
  expect(pool.status).toBe(201);
  expect((await admin.request('PATCH', `/admin/upstreams/${pool.body.upstream.id}`, { enabled: true })).status).toBe(200);
  // The gateways read the pools when they start.
  [one, two] = await Promise.all([startGatewayProcess('gw-rotate-one', server), startGatewayProcess('gw-rotate-two', server)]);
}, 180_000);

afterAll(async () => {
  for (const gw of [one, two]) if (gw) await stopGatewayProcess(gw);
  await chain?.close();
  await target?.close();
  await server?.close();
});

let tokens = 0;
const token = () => `R${(tokens++).toString(36).toUpperCase().padStart(7, '0')}`;
const SID = /^[a-z0-9]{8}$/;

/** The session id the provider saw for one request of this line through `gw` (a CONNECT tunnel unless named). */
async function sidVia(gw: GatewayProcess, username: string, protocol: 'connect' | 'socks5' | 'http' = 'connect'): Promise<string> {
  const seen = chain.seen.length;
  const get = 'GET /hello HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n';
  let body: string;
  if (protocol === 'connect') {
    const s = await connectTunnel(gw.port, target.port, username, user.proxyPassword);
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString('latin1')));
    await exchangeUntilClosed(s, get);
    body = text;
  } else {
    const writes =
      protocol === 'socks5'
        ? [...socksConnectWrites(username, user.proxyPassword, '127.0.0.1', target.port), Buffer.from(get)]
        : [
            Buffer.from(
              `GET ${target.url}/hello HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nProxy-Authorization: ${basic(username, user.proxyPassword)}\r\nConnection: close\r\n\r\n`,
            ),
          ];
    body = (await rawExchange(gw.port, writes)).data.toString('latin1');
  }
  expect(body).toContain('hello from target');
  expect(chain.seen.length).toBe(seen + 1);
  const m = /^p-[A-Z]+-[A-Z0-9]{8}-([a-z0-9]*)$/.exec(chain.seen.at(-1)!.username);
  expect(m, chain.seen.at(-1)!.username).not.toBeNull();
  return m![1]!;
}

type Rotated = { username: string; rotation: number; rotatedAt: string };
async function rotate(username: string): Promise<Rotated> {
  const r = await user.client.post<Rotated>('/api/lines/rotate', { username });
  expect(r.status).toBe(200);
  return r.body;
}

/** Polls both gateways until each gives the line a session id other than `old`; the ms each took and what it gave. */
async function untilNewSid(username: string, old: string): Promise<Array<{ ms: number; sid: string }>> {
  const at = Date.now();
  const out: Array<{ ms: number; sid: string } | null> = [null, null];
  while (out.some((o) => o === null) && Date.now() - at < 15_000) {
    for (const [i, gw] of [one, two].entries()) {
      if (out[i]) continue;
      // A probe open when its gateway learns of the rotation is closed by it (as every open
      // connection of the line is): that one tells nothing, the next one does.
      const sid = await sidVia(gw, username).catch(() => null);
      if (sid !== null && sid !== old) out[i] = { ms: Date.now() - at, sid };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(out.every(Boolean), 'both gateways changed the session id').toBe(true);
  return out as Array<{ ms: number; sid: string }>;
}

describe('POST /api/lines/rotate across two gateway processes', () => {
  it('gives the line the same new session id on both gateways within 5 s, derived from its counter; other lines keep theirs', async () => {
    const t = token();
    const username = user.username({ country: 'US' }, 60, t);
    const bystander = user.username({ country: 'US' }, 60, token());
    const sid0 = await sidVia(one, username);
    expect(sid0).toMatch(SID);
    expect(await sidVia(two, username)).toBe(sid0);
    const other = await sidVia(one, bystander);

    const first = await rotate(username);
    expect(first.rotation).toBe(1);
    const [a, b] = await untilNewSid(username, sid0);
    console.log(`rotated: new session id after ${a!.ms} ms (gw one), ${b!.ms} ms (gw two)`);
    expect(a!.ms).toBeLessThan(5000);
    expect(b!.ms).toBeLessThan(5000);
    expect(b!.sid).toBe(a!.sid);
    expect(a!.sid).toMatch(SID);
    // What any gateway derives from the shared key, the line, its period and the counter.
    const derive = new StickySessions(INTERNAL_KEY);
    expect(a!.sid).toBe(derive.session(user.proxyUserId, t, 60, Date.now(), { count: 1, at: Date.parse(first.rotatedAt) }).sid);
    // It stays: the next requests through either gateway keep it, whatever the client's protocol.
    for (const protocol of ['connect', 'socks5', 'http'] as const) {
      expect(await sidVia(two, username, protocol)).toBe(a!.sid);
      expect(await sidVia(one, username, protocol)).toBe(a!.sid);
    }
    expect(await sidVia(two, bystander)).toBe(other);

    // Again: another new one, again the same on both.
    const second = await rotate(username);
    expect(second.rotation).toBe(2);
    const [c, d] = await untilNewSid(username, a!.sid);
    expect(Math.max(c!.ms, d!.ms)).toBeLessThan(5000);
    expect(d!.sid).toBe(c!.sid);
    expect([sid0, a!.sid]).not.toContain(c!.sid);
  }, 60_000);

  it("closes the line's open CONNECT, SOCKS5 and HTTP forward connections within 10 s, logged `rotated`; another line's tunnel stays", async () => {
    const t = token();
    const username = user.username({ country: 'DE' }, 30, t);
    const drip = await startDrip();
    const request = `GET /drip HTTP/1.1\r\nHost: t\r\n\r\n`;
    // Each one busy with an answer that never ends: open until something closes it.
    const viaConnect = await busy(await connectTunnel(one.port, drip.port, username, user.proxyPassword), request);
    const socks = connect({ host: '127.0.0.1', port: two.port });
    for (const w of socksConnectWrites(username, user.proxyPassword, '127.0.0.1', drip.port)) socks.write(w);
    const viaSocks = await busy(socks, request);
    const viaForward = await busy(
      connect({ host: '127.0.0.1', port: one.port }),
      `GET http://127.0.0.1:${drip.port}/drip HTTP/1.1\r\nHost: 127.0.0.1:${drip.port}\r\nProxy-Authorization: ${basic(username, user.proxyPassword)}\r\n\r\n`,
    );
    const otherLine = user.username({ country: 'DE' }, 30, token());
    const bystander = await busy(await connectTunnel(two.port, drip.port, otherLine, user.proxyPassword), request);
    const closed = [viaConnect, viaSocks, viaForward].map(socketClosed);

    await rotate(username);
    const at = Date.now();
    await Promise.all(closed);
    const ms = Date.now() - at;
    console.log(`rotated: the line's 3 connections closed after ${ms} ms`);
    expect(ms).toBeLessThan(10_000);
    expect(bystander.destroyed).toBe(false);
    bystander.destroy();
    drip.close();

    // The gateways report their records every few seconds.
    type Row = { protocol: string; session: string; outcome: string; reason: string };
    let rows: Row[] = [];
    const until = Date.now() + 20_000;
    while (rows.length < 3 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      const log = await user.client.get<{ connections: Row[] }>('/api/connections?outcome=rotated');
      expect(log.status).toBe(200);
      // This line's (a probe of the test before may have been closed by its rotation too).
      rows = log.body.connections.filter((r) => r.session === t);
    }
    expect(rows.map((r) => r.protocol).sort()).toEqual(['connect', 'http', 'socks5']);
    for (const r of rows) expect(r).toMatchObject({ session: t, outcome: 'rotated', reason: 'a new IP was asked for this line' });
  }, 60_000);
});

/** An HTTP target whose answer never ends: a chunk every 100 ms, for as long as the connection lasts. */
async function startDrip(): Promise<{ port: number; close(): void }> {
  const server = createServer((s) => {
    s.on('error', () => undefined);
    s.once('data', () => {
      s.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n');
      const timer = setInterval(() => s.write('5\r\ndrip\n\r\n'), 100);
      s.once('close', () => clearInterval(timer));
    });
  });
  const port = await listen(server);
  return { port, close: () => server.close() };
}

/** Sends `request` on `socket` and waits until its answer flows (past any handshake replies). */
async function busy(socket: Socket, request: string): Promise<Socket> {
  socket.on('error', () => undefined);
  let text = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      text += d.toString('latin1');
      if (!text.includes('drip')) return;
      socket.off('data', onData);
      socket.off('close', early);
      resolve();
    };
    const early = () => reject(new Error(`closed before the answer flowed: ${text}`));
    socket.on('data', onData);
    socket.once('close', early);
    socket.write(request);
  });
  // Read on, so that the end is seen.
  socket.resume();
  return socket;
}

describe('a line session with its rotation counter', () => {
  const derive = new StickySessions('a shared key');
  it('changes for a rotation in the current period only; a line never rotated keeps its ids', () => {
    const now = Date.now();
    const plain = derive.session('abc123', 'TOKEN001', 30, now);
    const { endsAt } = plain;
    const periodStart = endsAt - 30 * 60_000;
    expect(derive.session('abc123', 'TOKEN001', 30, now, { count: 0, at: now })).toEqual(plain);
    const once = derive.session('abc123', 'TOKEN001', 30, now, { count: 1, at: periodStart + 1 });
    const twice = derive.session('abc123', 'TOKEN001', 30, now, { count: 2, at: periodStart + 1 });
    expect(new Set([plain.sid, once.sid, twice.sid]).size).toBe(3);
    expect(new Set([plain.id, once.id, twice.id]).size).toBe(3);
    expect(once.id).toMatch(/^[a-z0-9]+$/);
    expect(once.endsAt).toBe(endsAt);
    // Made in the previous period: this period's draw already replaced it.
    expect(derive.session('abc123', 'TOKEN001', 30, now, { count: 5, at: periodStart - 1 })).toEqual(plain);
    // The next period draws anew, rotated or not.
    expect(derive.session('abc123', 'TOKEN001', 30, endsAt, { count: 1, at: periodStart + 1 })).toEqual(derive.session('abc123', 'TOKEN001', 30, endsAt));
  });
});
