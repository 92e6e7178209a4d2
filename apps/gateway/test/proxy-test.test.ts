/**
 * POST /api/proxy-test: a customer's line tried once through the real gateway, to a loopback
 * IP-echo page. It answers the exit address and its country; a line of someone else is 403; a dead
 * page or an empty balance is `ok: false` with the gateway's reason; the test is never billed (the
 * wallet, the usage and the ledger are unchanged, and the connection log shows it with billedBytes
 * 0); the 11th test in a minute is 429. The gateway honours only a signature of the internal key,
 * and a quality probe's pool only as that signature names it.
 */
import { connect, createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '@proxyhub/api';
import { formatProxyLine } from '@proxyhub/core';
import { LINE_TEST_HEADER, signLineTest } from '@proxyhub/core/node';
import {
  balances,
  basic,
  closeServer,
  connectTunnel,
  exchangeUntilClosed,
  expectLedgerHolds,
  hourlyUsage,
  INTERNAL_KEY,
  listen,
  RELAXED_LIMITS,
  startGateway,
  startTarget,
  startTestServer,
  userWithCredits,
  type ProxyUser,
  type TestServer,
} from './helpers';
import type { Gateway } from '../src/gateway';

const MiB = 1n << 20n;
let server: TestServer;
let gateway: Gateway;
let gatewayPort: number;
let target: Awaited<ReturnType<typeof startTarget>>;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { ...RELAXED_LIMITS, proxyTest: DEFAULT_RATE_LIMITS.proxyTest } });
  gateway = await startGateway(server);
  gatewayPort = (gateway.server.address() as AddressInfo).port;
  target = await startTarget();
  checkUrl(`${target.url}/ip`);
});
afterAll(async () => {
  await gateway?.close();
  await server?.close();
  await target?.close();
});

/** Where the server's line tests go: the loopback page, through this file's gateway. */
function checkUrl(url: string) {
  server.config.proxyCheck = { url, gateway: { host: '127.0.0.1', port: gatewayPort } };
}

type Answer = { ok: true; latencyMs: number; exitIp: string | null; country: string | null } | { ok: false; failure: string; error: string };
const proxyTest = (u: ProxyUser, username: string) => u.client.post<Answer & { success?: false; error?: string }>('/api/proxy-test', { username });

describe('POST /api/proxy-test', () => {
  it('tries a line of the caller through the gateway: ok, latency, exit address and country', async () => {
    const u = await userWithCredits(server, 100n * MiB);
    const r = await proxyTest(u, u.username({ country: 'US' }, 30));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, latencyMs: expect.any(Number), exitIp: '127.0.0.1', country: null });
    expect((r.body as { latencyMs: number }).latencyMs).toBeLessThan(10_000);

    // A whole line as copied from the list (any format) is read for its username; the page's address is looked up.
    checkUrl(`${target.url}/ip?as=8.8.8.8`);
    try {
      const line = formatProxyLine('host:port:user:pass', 'localhost', gatewayPort, u.username(), u.proxyPassword);
      const r2 = await proxyTest(u, line);
      expect(r2.body).toMatchObject({ ok: true, exitIp: '8.8.8.8', country: 'US' });
    } finally {
      checkUrl(`${target.url}/ip`);
    }

    // A sub-account's line is the caller's too.
    const sub = (await u.client.post<{ account: { proxyUserId: string } }>('/api/proxy-accounts', { name: 'tested' })).body.account;
    const r3 = await proxyTest(u, `${sub.proxyUserId}_US_0_ABCDEFGH`);
    expect(r3.body).toMatchObject({ ok: true, exitIp: '127.0.0.1' });
  });

  it('is not billed: wallet, usage and ledger unchanged, the log shows it with billedBytes 0', async () => {
    const u = await userWithCredits(server, 100n * MiB);
    const before = await balances(u);
    const usageBefore = await hourlyUsage(server, u.userId);
    const served = target.closed.length;
    const r = await proxyTest(u, u.username());
    expect(r.body).toMatchObject({ ok: true });
    // The page was fetched through the gateway, and the gateway has reported everything since.
    await target.closedCount(served + 1);
    await expect.poll(() => gateway.stats().tunnels).toBe(0);
    await gateway.flush();
    expect(await balances(u)).toEqual(before);
    expect(await hourlyUsage(server, u.userId)).toEqual(usageBefore);
    await expectLedgerHolds(server, u.userId);
    const log = await u.client.get<{ connections: Array<{ proxyUserId: string; bytesDown: string; billedBytes: string; outcome: string; reason: string }> }>(
      '/api/connections',
    );
    expect(log.body.connections).toHaveLength(1);
    const [record] = log.body.connections;
    expect(record).toMatchObject({ proxyUserId: u.proxyUserId, outcome: 'ok', billedBytes: '0' });
    expect(Number(record!.bytesDown)).toBeGreaterThan(0);
    expect(record!.reason).toMatch(/^line test, not billed/);

    // The same line through an ordinary tunnel (no signature) is billed, to the byte.
    const tunnel = await connectTunnel(gatewayPort, target.port, u.username(), u.proxyPassword);
    const down = await exchangeUntilClosed(tunnel, 'GET /ip HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n');
    await expect.poll(() => gateway.stats().tunnels).toBe(0);
    await gateway.flush();
    const up = 'GET /ip HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n'.length;
    expect(await balances(u)).toEqual({ credits: before.credits - BigInt(up + down), usage: before.usage + BigInt(up + down) });
  });

  it("refuses someone else's line or an unknown one (403) and a malformed one (400), each with why", async () => {
    const [u, other] = await Promise.all([userWithCredits(server, 10n * MiB), userWithCredits(server, 10n * MiB)]);
    const theirs = await proxyTest(u, other.username());
    expect(theirs.status).toBe(403);
    expect(theirs.body.error).toBe(`Not one of your proxy lines: ${other.proxyUserId} is not your proxy user ID or one of your proxy accounts`);
    const unknown = await proxyTest(u, 'nosuchuser1_US_0_ABCDEFGH');
    expect(unknown.status).toBe(403);
    expect(unknown.body.error).toContain('Not one of your proxy lines: nosuchuser1');
    const bad = await proxyTest(u, 'localhost:3001:someone:secret');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Paste a proxy line or username from the generator');
    const badLocation = await proxyTest(u, `${u.proxyUserId}_us_0_ABCDEFGH`);
    expect(badLocation.status).toBe(400);
    expect(badLocation.body.error).toMatch(/^Not a proxy username: invalid location/);
  });

  it("blames the right thing: a good line to a dead check page, the gateway's refusal, a failed upstream", async () => {
    const u = await userWithCredits(server, 10n * MiB);
    const dead = createServer();
    const deadPort = await listen(dead);
    await closeServer(dead);
    checkUrl(`http://127.0.0.1:${deadPort}/`);
    try {
      // The gateway accepted the line and could not reach the page: the line works.
      const r = await proxyTest(u, u.username());
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        ok: false,
        failure: 'check_page',
        error: `The line works, but the check page could not be reached: Cannot connect to 127.0.0.1:${deadPort} (ECONNREFUSED)`,
      });
      // A name that does not resolve, as the "Cannot resolve api.ipify.org".
      checkUrl('http://check-page.invalid/');
      expect((await proxyTest(u, u.username())).body).toEqual({
        ok: false,
        failure: 'check_page',
        error: 'The line works, but the check page could not be reached: Cannot resolve check-page.invalid',
      });
    } finally {
      checkUrl(`${target.url}/ip`);
    }
    const broke = await userWithCredits(server, 0n);
    const empty = await proxyTest(broke, broke.username());
    expect(empty.body).toEqual({
      ok: false,
      failure: 'refused',
      error: expect.stringMatching(/^The gateway refused the line: 402 Payment Required: Out of data: top up at /),
    });

    // A gateway whose upstream is down: the page is fine, the provider behind the gateway failed.
    const gone = createServer();
    const gonePort = await listen(gone);
    await closeServer(gone);
    const viaDeadUpstream = await startGateway(server, { upstreamUrl: `http://127.0.0.1:${gonePort}` });
    server.config.proxyCheck = { url: `${target.url}/ip`, gateway: { host: '127.0.0.1', port: (viaDeadUpstream.server.address() as AddressInfo).port } };
    try {
      const r = await proxyTest(u, u.username());
      expect(r.body).toMatchObject({ ok: false, failure: 'upstream' });
      expect((r.body as { error: string }).error).toMatch(/^The upstream provider failed: 502 Bad Gateway: /);
    } finally {
      checkUrl(`${target.url}/ip`);
      await viaDeadUpstream.close();
    }
  });

  it('allows 10 tests a minute per user: the 11th is 429 with a message', async () => {
    const u = await userWithCredits(server, 10n * MiB);
    for (let i = 0; i < 10; i++) expect((await proxyTest(u, u.username())).body).toMatchObject({ ok: true });
    const r = await proxyTest(u, u.username());
    expect(r.status).toBe(429);
    expect(r.body.error).toMatch(/^Too many attempts\. Please try again in \d+ seconds\.$/);
    // Another user's tests are their own.
    const v = await userWithCredits(server, 10n * MiB);
    expect((await proxyTest(v, v.username())).status).toBe(200);
  });
});

describe('the gateway and a line-test signature', () => {
  const connectWith = async (u: ProxyUser, username: string, signature: string) => {
    const head = `CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\nProxy-Authorization: ${basic(username, u.proxyPassword)}\r\n${LINE_TEST_HEADER}: ${signature}\r\n\r\n`;
    // The gateway's first line, then the connection is dropped.
    const s = connect({ host: '127.0.0.1', port: gatewayPort });
    s.on('error', () => undefined);
    s.write(head);
    let got = '';
    for await (const chunk of s as AsyncIterable<Buffer>) {
      got += chunk.toString('latin1');
      if (got.includes('\r\n')) break;
    }
    s.destroy();
    return got.split('\r\n')[0];
  };

  it("refuses a forged, stale or another line's signature (403); a valid one opens the tunnel", async () => {
    const u = await userWithCredits(server, 10n * MiB);
    const username = u.username();
    expect(await connectWith(u, username, signLineTest('not-the-internal-key', username))).toBe('HTTP/1.1 403 Forbidden');
    expect(await connectWith(u, username, signLineTest(INTERNAL_KEY, username, Date.now() - 5 * 60_000))).toBe('HTTP/1.1 403 Forbidden');
    expect(await connectWith(u, username, signLineTest(INTERNAL_KEY, u.username()))).toBe('HTTP/1.1 403 Forbidden');
    expect(await connectWith(u, username, 'garbage')).toBe('HTTP/1.1 403 Forbidden');
    expect(await connectWith(u, username, signLineTest(INTERNAL_KEY, username))).toBe('HTTP/1.1 200 Connection Established');
  });

  it("a quality probe's pool is under its signature: re-pointed or added to a line test it is 403; a probe opens without a lease", async () => {
    const broke = await userWithCredits(server, 0n);
    const username = broke.username();
    const probe = signLineTest(INTERNAL_KEY, username, Date.now(), { upstreamId: null });
    expect(probe).toMatch(/\.\*$/);
    // The pool named after the signature was made: another pool, or a plain test's signature with a pool added.
    expect(await connectWith(broke, username, probe.replace(/\*$/, '11111111-2222-3333-4444-555555555555'))).toBe('HTTP/1.1 403 Forbidden');
    expect(await connectWith(broke, username, `${signLineTest(INTERNAL_KEY, username)}.*`)).toBe('HTTP/1.1 403 Forbidden');
    // A line test of an empty wallet is refused at its lease; the prober's probe takes none.
    expect(await connectWith(broke, username, signLineTest(INTERNAL_KEY, username))).toBe('HTTP/1.1 402 Payment Required');
    expect(await connectWith(broke, username, probe)).toBe('HTTP/1.1 200 Connection Established');
  });
});
