/**
 * ZIP (`~z`), ASN (`~a`) and hard sticky (`<minutes>h`) lines through a real gateway, over HTTP
 * forwarding, CONNECT and SOCKS5: fake providers on loopback that parse only their own grammar send
 * each line to a pool whose templates carry what it asks for; a line no pool serving its country can
 * carry is refused at login (407, SOCKS5 authentication failure) and billed nothing; a hard line
 * keeps its one pool or fails; direct egress takes them all.
 */
import type { AddressInfo } from 'node:net';
import { Server as ProxyChainServer } from 'proxy-chain';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../src/gateway';
import { createLogger } from '../src/log';
import {
  basic,
  deleteUpstreams,
  hourlyUsage,
  rawExchange,
  socksConnectWrites,
  startGateway,
  upstreamTestBed,
  type HttpClient,
  type Target,
  type ProxyUser,
  type TestServer,
} from './helpers';

const MiB = 1024 * 1024;
let server: TestServer;
let admin: HttpClient;
let target: Target;
let user: ProxyUser;
const cleanups: Array<() => unknown> = [];
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  ({ server, admin, target, user } = await upstreamTestBed(50n * BigInt(MiB)));
});
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  await deleteUpstreams(admin);
});
afterAll(async () => {
  await target?.close();
  await server?.close();
});

/** A provider on loopback that accepts only usernames its grammar parses (407 otherwise). */
async function fakeProvider(grammar: RegExp) {
  const seen: string[] = [];
  const chain = new ProxyChainServer({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ username, password }) => {
      seen.push(username);
      return { requestAuthentication: password !== 'pw' || !grammar.test(username) };
    },
  });
  await chain.listen();
  const close = () => chain.close(true);
  cleanups.push(close);
  return { port: chain.port, seen, close };
}

async function pool(name: string, usernameTemplate: string, countries: string[], port: number) {
  const r = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', {
    name,
    protocol: 'http',
    host: '127.0.0.1',
    port,
    usernameTemplate,
    password: 'pw',
    countries,
  });
  expect(r.status).toBe(201);
  expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
}

async function gateway(): Promise<Gateway> {
  const gw = await startGateway(server, {
    upstreams: { refreshMs: 150, random: Math.random },
    connectTimeoutMs: 2000,
    logger: createLogger('info', (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>)),
  });
  cleanups.push(() => gw.close());
  return gw;
}

const portOf = (gw: Gateway) => (gw.server.address() as AddressInfo).port;
const name = (loc: string, duration: string, token: string) => `${user.proxyUserId}_${loc}_${duration}_${token}`;

/** Raw bytes in, every byte out until the gateway closes. */
function exchange(gw: Gateway, bytes: Buffer[]): Promise<string> {
  return rawExchange(portOf(gw), bytes).then((r) => r.data.toString('latin1'));
}

/** The same request over each protocol the gateway speaks: what came back. */
async function overEachProtocol(gw: Gateway, username: string) {
  const get = `GET /hello HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n`;
  const auth = basic(username, user.proxyPassword);
  return {
    forward: await exchange(gw, [
      Buffer.from(
        `GET http://127.0.0.1:${target.port}/hello HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nProxy-Authorization: ${auth}\r\nConnection: close\r\n\r\n`,
      ),
    ]),
    connect: await exchange(gw, [Buffer.from(`CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\nProxy-Authorization: ${auth}\r\n\r\n${get}`)]),
    socks5: await exchange(gw, [...socksConnectWrites(username, user.proxyPassword, '127.0.0.1', target.port), Buffer.from(get)]),
  };
}

const SOCKS_AUTH_FAILED = '\x05\x02\x01\x01';

describe('ZIP and ASN in a line', () => {
  it('go only to a pool whose templates carry them, over HTTP forwarding, CONNECT and SOCKS5', async () => {
    const zipper = await fakeProvider(/^z-US(?:-zip-[A-Z0-9]{3,10})?(?:-asn-\d+)?(?:-sid-[a-z0-9]{8})?$/);
    const plain = await fakeProvider(/^p-(?:US|DE)(?:-sid-[a-z0-9]{8})?$/);
    await pool('Zip and ASN', 'z-{country}[-zip-{zip}][-asn-{asn}][-sid-{sid}]', ['US'], zipper.port);
    await pool('Plain', 'p-{country}[-sid-{sid}]', ['US', 'DE'], plain.port);
    const gw = await gateway();

    for (const [loc, spelled] of [
      ['US-CA-LOSANGELES~z90012', 'z-US-zip-90012'],
      ['US~a7922', 'z-US-asn-7922'],
      ['US~z90012~a7922', 'z-US-zip-90012-asn-7922'],
    ] as const) {
      for (const duration of ['0', '30']) {
        zipper.seen.length = 0;
        const answers = await overEachProtocol(gw, name(loc, duration, 'ZIPLINE1'));
        for (const [protocol, body] of Object.entries(answers)) expect(body, `${loc} ${duration} ${protocol}`).toContain('hello from target');
        expect(zipper.seen).toHaveLength(3);
        for (const u of zipper.seen) expect(u.startsWith(spelled), u).toBe(true);
        if (duration === '0') expect(zipper.seen).toEqual([spelled, spelled, spelled]);
      }
    }
    // Never one of them through the pool that cannot carry them.
    expect(plain.seen).toEqual([]);

    // The connection log's records carry them.
    await gw.flush();
    const log = await user.client.get<{ connections: Array<{ zip: string; asn: string; session: string }> }>('/api/connections?pageSize=500');
    expect(log.status).toBe(200);
    const mine = log.body.connections.filter((c) => c.session === 'ZIPLINE1' || c.session === 'rotating');
    const seen = new Set(mine.map((c) => `${c.zip}/${c.asn}`));
    expect([...seen].sort()).toEqual(['/7922', '90012/', '90012/7922']);
  });

  it('refuses a line no pool serving its country can carry: 407 Targeting not offered, SOCKS5 authentication failure, billed 0', async () => {
    const plain = await fakeProvider(/^p-(?:US|DE)(?:-sid-[a-z0-9]{8})?$/);
    const zipper = await fakeProvider(/^z-US(?:-zip-[A-Z0-9]{3,10})?(?:-sid-[a-z0-9]{8})?$/);
    await pool('Plain', 'p-{country}[-sid-{sid}]', ['US', 'DE'], plain.port);
    await pool('Zip (US only)', 'z-{country}[-zip-{zip}][-sid-{sid}]', ['US'], zipper.port);
    const asnOnly = await fakeProvider(/^a-US(?:-asn-\d+)?(?:-sid-[a-z0-9]{8})?$/);
    await pool('ASN (US only)', 'a-{country}[-asn-{asn}][-sid-{sid}]', ['US'], asnOnly.port);
    const gw = await gateway();
    const before = await hourlyUsage(server, user.userId);
    logLines.length = 0;

    for (const [loc, what] of [
      ['DE~z10115', 'ZIP'],
      ['DE~a3320', 'ASN'],
      // Each carried by a pool, but no pool carries both.
      ['US~z90012~a7922', 'ZIP and ASN'],
    ] as const) {
      const a = await overEachProtocol(gw, name(loc, '0', 'REFUSED1'));
      expect(a.forward).toMatch(/^HTTP\/1\.1 407 /);
      expect(a.forward).toContain(`Targeting not offered: ${what}`);
      expect(a.connect).toMatch(/^HTTP\/1\.1 407 /);
      expect(a.connect).toContain(`Targeting not offered: ${what}`);
      expect(a.socks5).toBe(SOCKS_AUTH_FAILED);
    }
    // Malformed: a 407 naming what is wrong.
    for (const [loc, duration, why] of [
      [`US~z${'9'.repeat(40)}`, '0', 'invalid ZIP: 3 to 10 letters and digits after ~z'],
      ['US~aAS7922', '0', 'invalid ASN: digits after ~a'],
      // h on a rotating line: nothing to keep.
      ['US', '0h', 'invalid duration: h (hard sticky) needs a sticky duration'],
    ] as const) {
      const a = await overEachProtocol(gw, name(loc, duration, 'BADINPUT'));
      expect(a.forward).toMatch(/^HTTP\/1\.1 407 /);
      expect(a.connect).toContain(`Malformed proxy username: ${why}`);
      expect(a.socks5).toBe(SOCKS_AUTH_FAILED);
    }
    expect(plain.seen).toEqual([]);
    expect(zipper.seen).toEqual([]);
    expect(asnOnly.seen).toEqual([]);
    const refusals = logLines.filter((l) => l.msg === 'proxy request refused' && l.kind === 'bad_location');
    expect(refusals).toHaveLength(9);
    for (const r of refusals)
      expect(r).toMatchObject({ kind: 'bad_location', reason: expect.stringMatching(/^Targeting not offered: (ZIP|ASN|ZIP and ASN)$/) });
    // Billed 0: nothing was relayed, nothing counted.
    await gw.flush();
    expect(await hourlyUsage(server, user.userId)).toEqual(before);
    // The lines without modifiers still go (the same countries, the same pools).
    expect((await overEachProtocol(gw, name('DE', '0', 'PLAINDE1'))).socks5).toContain('hello from target');
  });
});

describe('hard sticky', () => {
  it('goes only to pools that carry {hard}, keeps one session, and fails rather than switch pools', async () => {
    const grammar = /^h-DE-sid-[a-z0-9]{8}(?:-hard-1)?$|^h-DE$/;
    const hardA = await fakeProvider(grammar);
    const hardB = await fakeProvider(grammar);
    const plain = await fakeProvider(/^p-(?:US|DE)(?:-sid-[a-z0-9]{8})?$/);
    await pool('Hard A', 'h-{country}[-sid-{sid}][-hard-{hard}]', ['DE'], hardA.port);
    await pool('Hard B', 'h-{country}[-sid-{sid}][-hard-{hard}]', ['DE'], hardB.port);
    await pool('Plain', 'p-{country}[-sid-{sid}]', ['US', 'DE'], plain.port);
    const gw = await gateway();

    const username = name('DE', '30h', 'HARDLINE');
    const answers = await overEachProtocol(gw, username);
    for (const [protocol, body] of Object.entries(answers)) expect(body, protocol).toContain('hello from target');
    const seen = [...hardA.seen, ...hardB.seen];
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(1);
    expect(seen[0]).toMatch(/^h-DE-sid-[a-z0-9]{8}-hard-1$/);
    expect(plain.seen).toEqual([]);

    // Its pool goes away: the line fails; it is never carried by the other pool.
    const [mine, other] = hardA.seen.length ? [hardA, hardB] : [hardB, hardA];
    await mine.close();
    const after = await overEachProtocol(gw, username);
    expect(after.forward).toMatch(/^HTTP\/1\.1 502 /);
    expect(after.connect).toMatch(/^HTTP\/1\.1 502 /);
    expect(after.socks5).not.toContain('hello from target');
    expect(other.seen).toEqual([]);
    // A sticky line without h moves on to a pool that is up.
    expect((await overEachProtocol(gw, name('DE', '30', 'HARDLINE'))).connect).toContain('hello from target');

    // No pool serving US carries {hard}: refused, as it says.
    const us = await overEachProtocol(gw, name('US', '30h', 'HARDLIN2'));
    expect(us.forward).toMatch(/^HTTP\/1\.1 407 /);
    expect(us.forward).toContain('Targeting not offered: hard sticky');
    expect(us.connect).toContain('Targeting not offered: hard sticky');
    expect(us.socks5).toBe(SOCKS_AUTH_FAILED);
    // h on a rotating duration is not a line at all.
    const rotating = await overEachProtocol(gw, name('DE', '0h', 'HARDLIN3'));
    expect(rotating.connect).toMatch(/^HTTP\/1\.1 407 /);
    expect(rotating.connect).toContain('Malformed proxy username: invalid duration: h (hard sticky) needs a sticky duration');
    expect(rotating.socks5).toBe(SOCKS_AUTH_FAILED);
  });
});

describe('direct egress (no upstream)', () => {
  it('accepts and ignores ZIP, ASN and h, as it does state and city', async () => {
    const gw = await gateway();
    for (const username of [name('US-CA-LOSANGELES~z90012~a7922', '30h', 'DIRECT01'), name('DE~a3320', '0', 'DIRECT02')]) {
      const answers = await overEachProtocol(gw, username);
      for (const [protocol, body] of Object.entries(answers)) expect(body, `${username} ${protocol}`).toContain('hello from target');
    }
  });
});
