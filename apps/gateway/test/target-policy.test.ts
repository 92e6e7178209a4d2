/**
 * The target policy at the gateway: GET/PUT /admin/target-policy (an invalid pattern is a 400
 * naming it), refused before any connection for CONNECT, HTTP forward (absolute URI) and SOCKS5
 * with 403 "Target blocked by policy" / reply 2; blockRawIp; an exempt user; changes within 10 s.
 */
import { connect as netConnect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  basic,
  connectTunnel,
  exchangeUntilClosed,
  curl,
  rawExchange,
  socksConnectWrites,
  startStack,
  startTarget,
  userWithCredits,
  type HttpClient,
  type Stack,
} from './helpers';

let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;
let admin: HttpClient;
beforeAll(async () => {
  stack = await startStack({ targetPolicyPollMs: 200 });
  target = await startTarget();
  admin = await adminClient(stack.server);
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

type User = Awaited<ReturnType<typeof userWithCredits>>;
const connectTo = async (u: User, host: string) =>
  (
    await rawExchange(
      stack.port,
      [Buffer.from(`CONNECT ${host}:${target.port} HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`)],
      { endAfter: false },
    )
  ).data.toString('latin1');

/** A SOCKS5 client's greeting, login and CONNECT request to `host`, as one list of writes. */
const socksRequest = (u: User, host: string) => socksConnectWrites(u.username(), u.proxyPassword, host, target.port);

async function socksTo(u: User, host: string): Promise<number | undefined> {
  const { data } = await rawExchange(stack.port, socksRequest(u, host));
  return data[5];
}

/** An open SOCKS5 tunnel to the target (the gateway's answers read: 2 + 2 + 10 bytes). */
async function socksTunnel(u: User, host: string): Promise<Socket> {
  const s = netConnect({ host: '127.0.0.1', port: stack.port });
  for (const c of socksRequest(u, host)) s.write(c);
  let got = 0;
  await new Promise<void>((resolve) => {
    const onData = (d: Buffer) => {
      got += d.length;
      if (got < 14) return;
      s.off('data', onData);
      s.pause();
      resolve();
    };
    s.on('data', onData);
  });
  return s;
}

/** Waits for the gateways to have the policy (they poll every 200 ms here, every 5 s by default). */
const settle = () => new Promise((r) => setTimeout(r, 600));

describe('target policy', () => {
  it('GET and PUT /admin/target-policy; an invalid pattern is a 400 naming it', async () => {
    expect((await admin.get('/admin/target-policy')).body).toEqual({ rules: [], blockRawIp: false });
    const bad = await admin.request<{ error: string }>('PUT', '/admin/target-policy', { rules: ['ok.test', 'not a domain'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('Blocked domains: invalid pattern "not a domain"');
    const put = await admin.request('PUT', '/admin/target-policy', { rules: ['Blocked.test', '*.subs.test'] });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ rules: ['blocked.test', '*.subs.test'], blockRawIp: false });
    expect((await admin.get('/admin/target-policy')).body).toEqual({ rules: ['blocked.test', '*.subs.test'], blockRawIp: false });
  });

  it('refuses blocked names for CONNECT, HTTP forward and SOCKS5 before connecting; others pass', async () => {
    await admin.request('PUT', '/admin/target-policy', { rules: ['blocked.test', '*.subs.test'] });
    await settle();
    const u = await userWithCredits(stack.server, 1n << 30n);
    for (const host of ['blocked.test', 'www.blocked.test', 'a.subs.test']) {
      const answer = await connectTo(u, host);
      expect(answer).toMatch(/^HTTP\/1\.1 403 /);
      expect(answer.endsWith('\r\n\r\nTarget blocked by policy') || answer.includes('\r\n\r\nTarget blocked by policy')).toBe(true);
      expect(await socksTo(u, host)).toBe(0x02);
    }
    const forward = await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, 'http://www.blocked.test/hello']);
    expect(forward.status).toBe(403);
    expect(forward.stdout).toContain('Target blocked by policy');
    // subs.test itself is not blocked by *.subs.test: refused only because the name does not resolve.
    expect(await connectTo(u, 'subs.test')).not.toMatch(/^HTTP\/1\.1 403 /);
    await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword).then((s) => s.destroy());
  });

  it('blockRawIp refuses targets given as addresses; an exempt user is not refused', async () => {
    await admin.request('PUT', '/admin/target-policy', { rules: [], blockRawIp: true });
    await settle();
    const u = await userWithCredits(stack.server, 1n << 30n);
    expect(await connectTo(u, '127.0.0.1')).toMatch(/^HTTP\/1\.1 403 /);
    const exempt = await admin.request('PATCH', `/admin/users/${u.userId}`, { targetPolicyExempt: true });
    expect(exempt.status).toBe(200);
    expect(exempt.body).toMatchObject({ success: true, user: { id: u.userId, targetPolicyExempt: true } });
    expect((await admin.request<{ error: string }>('PATCH', `/admin/users/${u.userId}`, { targetPolicyExempt: 'yes' })).body.error).toBe(
      'Target policy exemption must be true or false',
    );
    // Within the credential cache's refresh (seconds).
    const deadline = Date.now() + 10_000;
    let ok = false;
    while (!ok && Date.now() < deadline) {
      ok = await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword).then(
        (s) => (s.destroy(), true),
        () => false,
      );
      if (!ok) await new Promise((r) => setTimeout(r, 250));
    }
    expect(ok).toBe(true);
    await admin.request('PUT', '/admin/target-policy', { rules: [], blockRawIp: false });
  });

  it("checks a tunnel's TLS server name: a blocked one is closed before the hello reaches the target", async () => {
    await admin.request('PUT', '/admin/target-policy', { rules: ['blocked.test'] });
    await settle();
    const u = await userWithCredits(stack.server, 1n << 30n);
    /** A TLS client through a tunnel to the (allowed) target address; what the target read of it. */
    const tlsThrough = async (servername: string, socks = false) => {
      const before = target.closed.length;
      const tunnel = socks ? await socksTunnel(u, '127.0.0.1') : await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword);
      const tls = tlsConnect({ socket: tunnel, servername, rejectUnauthorized: false });
      await new Promise((r) => tls.once('error', r).once('close', r));
      tunnel.destroy();
      return (await target.closedCount(before + 1))[before]!.bytesRead;
    };
    expect(await tlsThrough('www.blocked.test')).toBe(0);
    expect(await tlsThrough('www.blocked.test', true)).toBe(0);
    // An allowed name reaches the target (a plain HTTP server, which then refuses the hello).
    expect(await tlsThrough('allowed.test')).toBeGreaterThan(100);
    // Not TLS: relayed at once.
    const plain = await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword);
    const started = Date.now();
    expect(await exchangeUntilClosed(plain, 'GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(2000);
    // A target that speaks first (SMTP, SSH) is heard at once, while the client is still silent.
    const greeter = createNetServer((c) => c.end('220 ready\r\n'));
    await new Promise<void>((r) => greeter.listen(0, '127.0.0.1', r));
    const silent = netConnect({ host: '127.0.0.1', port: stack.port });
    const greeted = Date.now();
    silent.write(
      `CONNECT 127.0.0.1:${(greeter.address() as AddressInfo).port} HTTP/1.1\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`,
    );
    let heard = '';
    for await (const d of silent) if ((heard += String(d)).endsWith('220 ready\r\n')) break;
    expect(Date.now() - greeted).toBeLessThan(2000);
    greeter.close();
    await stack.gateway.flush();
    const log = await u.client.get<{ connections: Array<{ outcome: string; billedBytes: string; reason: string }> }>('/api/connections?outcome=blocked');
    expect(log.body.connections).toHaveLength(2); // the two blocked names
    expect(log.body.connections[0]).toMatchObject({ billedBytes: '0', reason: 'Target blocked by policy (TLS server name www.blocked.test)' });
    await admin.request('PUT', '/admin/target-policy', { rules: [], blockRawIp: false });
  });
});
