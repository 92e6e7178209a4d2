/**
 * A proxy account's own target rules: GET/PUT /api/proxy-accounts/:id/targets (`main` or one of
 * the caller's proxy user ids; 404 for anyone else's; an invalid pattern or 1,001 of them a 400),
 * then at the gateway over real sockets: a deny rule refuses the CONNECT authority, a forwarded
 * request's Host and a tunnel's TLS server name with 403 "Target not allowed for this proxy
 * account" (SOCKS5 reply 2), recorded as `blocked` and billed nothing; allow mode lets only the
 * listed hosts through; a change reaches two running gateways within 10 s.
 */
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  balances,
  basic,
  closeAll,
  connectTunnel,
  rawExchange,
  socksConnectWrites,
  startGateway,
  startStackAndTarget,
  userWithCredits,
  type Stack,
  type Target,
} from './helpers';

let stack: Stack;
let target: Target;
beforeAll(async () => {
  ({ stack, target } = await startStackAndTarget());
});
afterAll(() => closeAll(stack, target));

type User = Awaited<ReturnType<typeof userWithCredits>>;
type Rules = { mode: string; patterns: string[] };
const NOT_ALLOWED = 'Target not allowed for this proxy account';

/** The gateway's answer to a CONNECT: everything until it closes, or the head of a 200 (then the tunnel is closed). */
function connectTo(u: User, host: string, port = stack.port, username = u.username(), password = u.proxyPassword): Promise<string> {
  return new Promise((resolve) => {
    const s = netConnect({ host: '127.0.0.1', port });
    let got = '';
    s.on('connect', () => s.write(`CONNECT ${host}:${target.port} HTTP/1.1\r\nProxy-Authorization: ${basic(username, password)}\r\n\r\n`));
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.startsWith('HTTP/1.1 200 ') && got.includes('\r\n\r\n')) s.destroy();
    });
    s.on('error', () => undefined);
    s.on('close', () => resolve(got));
  });
}

async function socksTo(u: User, host: string): Promise<number | undefined> {
  return (await rawExchange(stack.port, socksConnectWrites(u.username(), u.proxyPassword, host, target.port))).data[5];
}

/** A forwarded request whose URI names `uriHost` and whose Host header names `hostHeader`. */
async function forward(u: User, uriHost: string, hostHeader: string): Promise<string> {
  const req = `GET http://${uriHost}:${target.port}/ HTTP/1.1\r\nHost: ${hostHeader}\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\nConnection: close\r\n\r\n`;
  return (await rawExchange(stack.port, [Buffer.from(req)])).data.toString('latin1');
}

const putRules = (u: User, id: string, body: unknown) => u.client.request<Rules & { error?: string }>('PUT', `/api/proxy-accounts/${id}/targets`, body);

/** Logins are cached 5 s: a test that changes rules after a login waits for the refresh (polls, within 10 s). */
async function until(check: () => Promise<boolean>, ms = 10_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}

describe('GET and PUT /api/proxy-accounts/:id/targets', () => {
  it('answers the main account and sub-accounts by id; normalizes; 400 names a bad pattern; 404 for another user', async () => {
    const u = await userWithCredits(stack.server, 0n);
    expect((await u.client.get('/api/proxy-accounts/main/targets')).body).toEqual({ mode: 'deny', patterns: [] });
    const put = await putRules(u, 'main', { mode: 'deny', patterns: ['Ads.Example.com', '*.tracker.test', 'ads.example.com'] });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ mode: 'deny', patterns: ['ads.example.com', '*.tracker.test'] });
    expect((await u.client.get(`/api/proxy-accounts/${u.proxyUserId}/targets`)).body).toEqual(put.body);

    const bad = await putRules(u, 'main', { mode: 'deny', patterns: ['ok.test', 'not a domain'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Patterns: invalid pattern "not a domain"');
    const many = await putRules(u, 'main', { mode: 'allow', patterns: Array.from({ length: 1001 }, (_, i) => `h${i}.test`) });
    expect(many.status).toBe(400);
    expect(many.body.error).toBe('Patterns: at most 1000 patterns');
    const thousand = await putRules(u, 'main', { mode: 'allow', patterns: Array.from({ length: 1000 }, (_, i) => `h${i}.test`) });
    expect(thousand.status).toBe(200);
    expect(thousand.body.patterns).toHaveLength(1000);
    expect((await putRules(u, 'main', { mode: 'block', patterns: [] })).body.error).toBe('Mode must be allow or deny');

    const sub = (await u.client.post<{ account: { proxyUserId: string } }>('/api/proxy-accounts', { name: 'scraper' })).body.account;
    expect((await putRules(u, sub.proxyUserId, { mode: 'allow', patterns: ['shop.test'] })).body).toEqual({ mode: 'allow', patterns: ['shop.test'] });
    // Nothing written on a refused change.
    expect((await u.client.get(`/api/proxy-accounts/${sub.proxyUserId}/targets`)).body).toEqual({ mode: 'allow', patterns: ['shop.test'] });

    const other = await userWithCredits(stack.server, 0n);
    for (const id of [sub.proxyUserId, u.proxyUserId, 'nosuchaccount']) {
      const got = await other.client.get<{ error: string }>(`/api/proxy-accounts/${id}/targets`);
      expect(got.status).toBe(404);
      expect(got.body.error).toBe('Proxy account not found');
      expect((await putRules(other, id, { mode: 'deny', patterns: [] })).status).toBe(404);
    }
    expect((await u.client.get(`/api/proxy-accounts/${sub.proxyUserId}/targets`)).body).toEqual({ mode: 'allow', patterns: ['shop.test'] });
    expect((await stack.server.client().get('/api/proxy-accounts/main/targets')).status).toBe(401);
  });

  it('"Block for this account" merges hosts into the deny rules', async () => {
    const u = await userWithCredits(stack.server, 0n);
    await putRules(u, 'main', { mode: 'deny', patterns: ['a.test'] });
    const r = await u.client.post<Rules>('/api/proxy-accounts/main/targets/block', { hosts: ['B.test', 'a.test'] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ mode: 'deny', patterns: ['a.test', 'b.test'] });
    const bad = await u.client.post<{ error: string }>('/api/proxy-accounts/main/targets/block', { hosts: ['no host'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Hosts: invalid host "no host"');
    // An allow list stops listing them instead (an unlisted host is refused already).
    await putRules(u, 'main', { mode: 'allow', patterns: ['shop.test', 'b.test'] });
    expect((await u.client.post<Rules>('/api/proxy-accounts/main/targets/block', { hosts: ['b.test'] })).body).toEqual({
      mode: 'allow',
      patterns: ['shop.test'],
    });
    // Never past 1,000 patterns: refused whole, nothing written.
    await putRules(u, 'main', { mode: 'deny', patterns: Array.from({ length: 999 }, (_, i) => `h${i}.test`) });
    const over = await u.client.post<{ error: string }>('/api/proxy-accounts/main/targets/block', { hosts: ['x.test', 'y.test'] });
    expect(over.status).toBe(400);
    expect(over.body.error).toBe('Patterns: at most 1000 patterns (this account has 999)');
    expect((await u.client.get<Rules>('/api/proxy-accounts/main/targets')).body.patterns).toHaveLength(999);
  });
});

describe('at the gateway', () => {
  it('a deny rule refuses the CONNECT authority, SOCKS5, a forwarded Host and a TLS server name; blocked, billed 0', async () => {
    const u = await userWithCredits(stack.server, 1n << 30n);
    await putRules(u, 'main', { mode: 'deny', patterns: ['denied.test'] });
    for (const host of ['denied.test', 'www.denied.test']) {
      const answer = await connectTo(u, host);
      expect(answer).toMatch(/^HTTP\/1\.1 403 /);
      expect(answer).toContain(`\r\n\r\n${NOT_ALLOWED}`);
      expect(answer).toContain(`Proxy-Status: ProxyHub; error=http_request_denied; details="${NOT_ALLOWED}"`);
      expect(await socksTo(u, host)).toBe(0x02);
    }
    // The URI host allowed, the Host header denied (and the other way round): refused either way.
    expect(await forward(u, '127.0.0.1', 'denied.test')).toMatch(new RegExp(`^HTTP/1\\.1 403 [^]*${NOT_ALLOWED}`));
    expect(await forward(u, 'denied.test', '127.0.0.1')).toMatch(/^HTTP\/1\.1 403 /);
    // A tunnel to an address, with a TLS server name that is denied: the hello never reaches the target.
    const before = target.closed.length;
    const tunnel = await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword);
    const tls = tlsConnect({ socket: tunnel, servername: 'api.denied.test', rejectUnauthorized: false });
    await new Promise((r) => tls.once('error', r).once('close', r));
    tunnel.destroy();
    expect((await target.closedCount(before + 1))[before]!.bytesRead).toBe(0);
    // Other hosts pass.
    expect(await connectTo(u, '127.0.0.1')).toMatch(/^HTTP\/1\.1 200 /);

    await stack.gateway.flush();
    type Row = { outcome: string; billedBytes: string; reason: string; target: string };
    const log = await until(async () => {
      await stack.gateway.flush();
      return (await u.client.get<{ connections: Row[] }>('/api/connections?outcome=blocked')).body.connections.length >= 7;
    });
    expect(log).toBeLessThan(10_000);
    const blocked = (await u.client.get<{ connections: Row[] }>('/api/connections?outcome=blocked')).body.connections;
    expect(blocked).toHaveLength(7);
    expect(blocked.every((c) => c.billedBytes === '0')).toBe(true);
    expect(blocked.map((c) => c.reason)).toContain(`${NOT_ALLOWED} (TLS server name api.denied.test)`);
    expect(blocked.filter((c) => c.reason === NOT_ALLOWED)).toHaveLength(6);
    // Only the one tunnel that was let through (its CONNECT answer, no bytes) may be billed: nothing was.
    expect((await balances(u)).usage).toBe(0n);
  });

  it('allow mode lets only the listed hosts through (an address is not listed); a sub-account has its own rules', async () => {
    const u = await userWithCredits(stack.server, 1n << 30n);
    const sub = (await u.client.post<{ account: { proxyUserId: string; proxyPassword: string } }>('/api/proxy-accounts', { name: 'only local' })).body.account;
    await putRules(u, sub.proxyUserId, { mode: 'allow', patterns: ['localhost'] });
    const subUser = `${sub.proxyUserId}${u.username().slice(u.proxyUserId.length)}`;
    expect(await connectTo(u, 'localhost', stack.port, subUser, sub.proxyPassword)).toMatch(/^HTTP\/1\.1 200 /);
    for (const host of ['127.0.0.1', 'elsewhere.test', 'localhost.evil.test']) {
      const answer = await connectTo(u, host, stack.port, subUser, sub.proxyPassword);
      expect(answer).toMatch(/^HTTP\/1\.1 403 /);
      expect(answer).toContain(NOT_ALLOWED);
    }
    // The main account is not bound by its sub-account's rules.
    expect(await connectTo(u, '127.0.0.1')).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("a kept-alive forwarded connection's next request is judged by the changed rules", async () => {
    const u = await userWithCredits(stack.server, 1n << 30n);
    const s = netConnect({ host: '127.0.0.1', port: stack.port });
    let got = '';
    s.on('data', (d: Buffer) => (got += d.toString('latin1')));
    /** Sends a request on the one connection and waits for its answer's status line. */
    const ask = async (): Promise<string> => {
      const at = got.length;
      s.write(
        `GET http://localhost:${target.port}/ HTTP/1.1\r\nHost: localhost:${target.port}\r\nProxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n\r\n`,
      );
      while (!/\r\n\r\n/.test(got.slice(at))) await new Promise((r) => setTimeout(r, 20));
      // Let the body arrive before the next request.
      await new Promise((r) => setTimeout(r, 50));
      return got.slice(at, got.indexOf('\r\n', at));
    };
    expect(await ask()).toBe('HTTP/1.1 200 OK');
    await putRules(u, 'main', { mode: 'deny', patterns: ['localhost'] });
    const took = await until(async () => (await ask()).startsWith('HTTP/1.1 403'));
    expect(took).toBeLessThan(10_000);
    s.destroy();
  });

  it('a change reaches every running gateway within 10 s', async () => {
    const second = await startGateway(stack.server);
    try {
      const secondPort = (second.server.address() as { port: number }).port;
      const u = await userWithCredits(stack.server, 1n << 30n);
      // Both gateways have the login cached and a tunnel open.
      const open = [
        await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword),
        await connectTunnel(secondPort, target.port, u.username(), u.proxyPassword),
      ];
      const put = await putRules(u, 'main', { mode: 'deny', patterns: ['localhost'] });
      expect(put.status).toBe(200);
      const refusedOn = (port: number) => async () => (await connectTo(u, 'localhost', port)).startsWith('HTTP/1.1 403 ');
      const [a, b] = await Promise.all([until(refusedOn(stack.port)), until(refusedOn(secondPort))]);
      expect(Math.max(a, b)).toBeLessThan(10_000);
      for (const s of open) s.destroy();
      // And back.
      await putRules(u, 'main', { mode: 'deny', patterns: [] });
      await until(async () => (await connectTo(u, 'localhost')).startsWith('HTTP/1.1 200 '));
    } finally {
      await second.close();
    }
  });
});
