/**
 * The IP allow-list through the real gateway and real sockets on loopback (127.0.0.2 is "another
 * address"): a listed user's credentials work from 127.0.0.1 and are refused from 127.0.0.2 over
 * HTTP, CONNECT and SOCKS5, with the reason in the gateway's log; a SOCKS5 client without
 * credentials (what Chromium sends) from a password-less address is that user's main account and is
 * billed, and from any other address is refused; list changes reach the gateway without a restart,
 * closing open tunnels from addresses no longer listed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log';
import {
  balances,
  connectTunnel,
  curl,
  exchangeUntilClosed,
  expectLedgerHolds,
  hourlyUsage,
  socketClosed,
  startStack,
  startTarget,
  userWithCredits,
  type ProxyUser,
  type Stack,
} from './helpers';

const GiB = 1n << 30n;
const OTHER = '127.0.0.2';
const logLines: string[] = [];
let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;
beforeAll(async () => {
  stack = await startStack({ logger: createLogger('info', (l) => logLines.push(l)) });
  target = await startTarget();
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

const setList = async (u: ProxyUser, body: { entries: string[]; passwordless?: boolean }) => {
  const r = await u.client.request('PUT', '/api/ip-allowlist', body);
  expect(r.status).toBe(200);
};

/** The refusals logged since `from` (parsed log lines). */
function refusalsSince(from: number): Array<{ protocol: string; kind: string; reason: string; remote: string }> {
  return logLines
    .slice(from)
    .map((l) => JSON.parse(l) as { msg: string; protocol: string; kind: string; reason: string; remote: string })
    .filter((l) => l.msg === 'proxy request refused');
}

const viaHttp = (u: ProxyUser, from: string) =>
  curl(['--interface', from, '-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `${target.url}/hello`]);
const viaSocks = (from: string, u?: ProxyUser, path = '/hello') =>
  curl([
    '--interface',
    from,
    '-x',
    u ? `socks5h://${encodeURIComponent(u.username())}:${u.proxyPassword}@127.0.0.1:${stack.port}` : `socks5h://127.0.0.1:${stack.port}`,
    `${target.url}${path}`,
  ]);

/** Polls `probe` every 200 ms until `done` holds (at most 60 s); the milliseconds it took. */
async function within<T>(probe: () => Promise<T>, done: (v: T) => boolean): Promise<number> {
  const at = Date.now();
  for (;;) {
    if (done(await probe())) return Date.now() - at;
    if (Date.now() - at > 60_000) throw new Error('not within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('IP allow-list at the gateway', () => {
  it('a listed user is accepted from a listed address and refused from another (HTTP, CONNECT, SOCKS5), with the reason logged', async () => {
    const u = await userWithCredits(stack.server, GiB);
    await setList(u, { entries: ['127.0.0.1'] });
    const mark = logLines.length;

    expect((await viaHttp(u, '127.0.0.1')).status).toBe(200);
    const refusedHttp = await viaHttp(u, OTHER);
    expect(refusedHttp.status).toBe(407);
    expect(refusedHttp.stdout).toContain(`IP allow-list does not include ${OTHER}`);

    (await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword, '127.0.0.1')).destroy();
    await expect(connectTunnel(stack.port, target.port, u.username(), u.proxyPassword, OTHER)).rejects.toThrow(
      /^HTTP\/1\.1 407 [\s\S]*IP allow-list does not include 127\.0\.0\.2/,
    );

    const socksOk = await viaSocks('127.0.0.1', u);
    expect(socksOk.stdout).toBe('hello from target\n');
    const socksRefused = await viaSocks(OTHER, u);
    expect(socksRefused.code).not.toBe(0);
    expect(socksRefused.stdout).not.toContain('hello');

    const refusals = refusalsSince(mark).filter((r) => r.kind === 'address_not_allowed');
    expect(refusals.map((r) => r.protocol).sort()).toEqual(['http', 'http', 'socks5']);
    for (const r of refusals) {
      expect(r.remote).toBe(OTHER);
      expect(r.reason).toBe(`This proxy account's IP allow-list does not include ${OTHER}`);
    }
    // A range holds the other address: accepted from it again.
    await setList(u, { entries: ['127.0.0.0/30'] });
    await within(
      () => viaHttp(u, OTHER),
      (r) => r.status === 200,
    );
  });

  it('SOCKS5 without credentials from a password-less address is the main account and is billed; from another address it is refused', async () => {
    const u = await userWithCredits(stack.server, GiB);
    const before = await balances(u);
    const mark = logLines.length;
    // Not password-less yet: no credentials is no access (SOCKS5 and HTTP alike).
    const refused = await viaSocks('127.0.0.1');
    expect(refused.code).not.toBe(0);
    expect((await curl(['--interface', '127.0.0.1', '-x', stack.proxyUrl, `${target.url}/hello`])).status).toBe(407);

    await setList(u, { entries: ['127.0.0.1'], passwordless: true });
    const closedBefore = target.closed.length;
    const bytes = 3 * 1024 * 1024 + 17;
    const down = await within(
      () => viaSocks('127.0.0.1', undefined, `/download?bytes=${bytes}`),
      (r) => r.code === 0,
    );
    expect(down).toBeLessThan(10_000);
    const got = await viaSocks('127.0.0.1', undefined, `/download?bytes=${bytes}`);
    expect(got.stdout.length).toBe(bytes);
    // HTTP forwarding and CONNECT without Proxy-Authorization from the address work too.
    expect((await curl(['--interface', '127.0.0.1', '-x', stack.proxyUrl, `${target.url}/hello`])).stdout).toBe('hello from target\n');
    expect((await curl(['--interface', '127.0.0.1', '-p', '-x', stack.proxyUrl, `${target.url}/hello`])).stdout).toBe('hello from target\n');

    // From another address, without credentials: refused.
    const other = await viaSocks(OTHER);
    expect(other.code).not.toBe(0);
    expect((await curl(['--interface', OTHER, '-x', stack.proxyUrl, `${target.url}/hello`])).status).toBe(407);
    expect((await curl(['--interface', OTHER, '-p', '-x', stack.proxyUrl, `${target.url}/hello`])).stdout).not.toContain('hello');
    const socksRefusals = refusalsSince(mark).filter((r) => r.protocol === 'socks5');
    expect(socksRefusals.at(-1)).toMatchObject({ kind: 'no_method', remote: OTHER });
    expect(socksRefusals.at(-1)!.reason).toContain(`${OTHER} is not a password-less address`);

    // Billed: the usage is exactly the bytes the target exchanged on those connections.
    const conns = await target.closedCount(closedBefore + 4);
    await stack.gateway.flush();
    const mine = conns.slice(closedBefore);
    const usage = await hourlyUsage(stack.server, u.userId);
    expect(usage.down).toBe(mine.reduce((s, c) => s + c.bytesWritten, 0));
    expect(usage.up).toBe(mine.reduce((s, c) => s + c.bytesRead, 0));
    expect(usage.down).toBeGreaterThan(2 * bytes);
    const after = await balances(u);
    expect(after.usage - before.usage).toBe(BigInt(usage.up + usage.down));
    await expectLedgerHolds(stack.server, u.userId);
    await setList(u, { entries: [], passwordless: false });
  });

  it('a list change takes effect without a restart: open tunnels from dropped addresses close, password-less ends', async () => {
    const u = await userWithCredits(stack.server, GiB);
    await setList(u, { entries: ['127.0.0.1'], passwordless: true });
    const open = await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword, '127.0.0.1');
    const openClosed = socketClosed(open);
    void exchangeUntilClosed(open, `GET /hello HTTP/1.1\r\nHost: t\r\n\r\n`);
    await within(
      () => viaSocks('127.0.0.1'),
      (r) => r.code === 0,
    );

    await setList(u, { entries: [OTHER], passwordless: false });
    const at = Date.now();
    await openClosed;
    const tunnelMs = Date.now() - at;
    const credsMs = await within(
      () => viaHttp(u, '127.0.0.1'),
      (r) => r.status === 407,
    );
    const socksMs = await within(
      () => viaSocks('127.0.0.1'),
      (r) => r.code !== 0,
    );
    const otherMs = await within(
      () => viaHttp(u, OTHER),
      (r) => r.status === 200,
    );
    console.log(`allow-list change: tunnel closed after ${tunnelMs} ms, credentials refused after ${credsMs} ms, password-less ended after ${socksMs} ms`);
    expect(tunnelMs).toBeLessThan(60_000);
    expect(otherMs).toBeLessThan(60_000);

    // An empty list: anywhere again.
    await setList(u, { entries: [] });
    await within(
      () => viaHttp(u, '127.0.0.1'),
      (r) => r.status === 200,
    );
    await stack.gateway.flush();
    await expectLedgerHolds(stack.server, u.userId);
  });
});
