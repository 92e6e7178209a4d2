/**
 * Ways around the target policy, each closed through real sockets: a ClientHello for a blocked name
 * sent late into a tunnel (0 s, 3.5 s, 10 s: the target receives 0 bytes), a blocked `Host` on a
 * forwarded request or as a tunnel's first request, and the numeric spellings of an IPv4 address
 * (127.1, 2130706433, 0x7f000001, ...) that blockRawIp and the private-address rule must both see.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { connect as netConnect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  basic,
  connectTunnel,
  socketClosed,
  socksConnectWrites,
  startGateway,
  startStackAndTarget,
  userWithCredits,
  type HttpClient,
  type Stack,
  type Target,
} from './helpers';

let stack: Stack;
let target: Target;
let admin: HttpClient;
let u: Awaited<ReturnType<typeof userWithCredits>>;
beforeAll(async () => {
  ({ stack, target } = await startStackAndTarget({ targetPolicyPollMs: 200 }));
  admin = await adminClient(stack.server);
  u = await userWithCredits(stack.server, 1n << 30n);
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Sets the policy and waits for the gateways to have it (they poll every 200 ms here). */
async function policy(rules: string[], blockRawIp = false): Promise<void> {
  expect((await admin.request('PUT', '/admin/target-policy', { rules, blockRawIp })).status).toBe(200);
  await sleep(600);
}

/**
 * Writes `bytes` to the gateway at `port`; what it answered by the time it closed, or by the end
 * of the first answer that leaves the connection open (a CONNECT's 200, a forwarded 200 response).
 */
function answer(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const s = netConnect({ host: '127.0.0.1', port });
    let got = '';
    const done = () => {
      s.destroy();
      resolve(got);
    };
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (/^HTTP\/1\.1 200 Connection Established\r\n[^]*?\r\n\r\n/.test(got) || /^HTTP\/1\.1 200 [^]*\r\n\r\nhello from target\n$/.test(got)) done();
    });
    s.on('error', () => undefined);
    s.on('close', done);
    s.write(bytes);
  });
}

const auth = () => `Proxy-Authorization: ${basic(u.username(), u.proxyPassword)}\r\n`;
const connectTo = (host: string, port = stack.port) => answer(port, `CONNECT ${host}:${target.port} HTTP/1.1\r\n${auth()}\r\n`);
const forwardTo = (uriHost: string, hostHeader: string, port = stack.port) =>
  answer(port, `GET http://${uriHost}:${target.port}/hello HTTP/1.1\r\nHost: ${hostHeader}\r\n${auth()}Connection: close\r\n\r\n`);

const socksRequest = (host: string, port = target.port) => socksConnectWrites(u.username(), u.proxyPassword, host, port);

/** A SOCKS5 CONNECT to `host`: the socket once the gateway replied (2 + 2 + 10 bytes), and the reply code. */
async function socksOpen(host: string, gatewayPort = stack.port, port = target.port): Promise<{ socket: Socket; rep: number | undefined }> {
  const socket = netConnect({ host: '127.0.0.1', port: gatewayPort });
  socket.on('error', () => undefined);
  for (const c of socksRequest(host, port)) socket.write(c);
  let got = Buffer.alloc(0);
  await new Promise<void>((resolve) => {
    const onData = (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length < 14) return;
      socket.off('data', onData);
      socket.pause();
      resolve();
    };
    socket.on('data', onData);
    socket.once('close', () => resolve());
  });
  return { socket, rep: got[5] };
}

async function socksTo(host: string, gatewayPort = stack.port): Promise<number | undefined> {
  const { socket, rep } = await socksOpen(host, gatewayPort);
  socket.destroy();
  return rep;
}

/** An open tunnel to the (allowed) target address, over CONNECT or SOCKS5. */
async function tunnel(protocol: 'connect' | 'socks5', gatewayPort = stack.port, port = target.port): Promise<Socket> {
  if (protocol === 'connect') return connectTunnel(gatewayPort, port, u.username(), u.proxyPassword);
  const { socket, rep } = await socksOpen('127.0.0.1', gatewayPort, port);
  expect(rep).toBe(0);
  return socket;
}

/** How many bytes the target read on the connection the tunnel opened, once it has closed. */
async function targetRead(run: () => Promise<void>): Promise<number> {
  const before = target.closed.length;
  await run();
  return (await target.closedCount(before + 1))[before]!.bytesRead;
}

/** A TLS ClientHello for `servername` into an open tunnel `delayMs` after it opened; resolves once the tunnel closed. */
async function lateHello(t: Socket, servername: string, delayMs: number): Promise<void> {
  await sleep(delayMs);
  const tls = tlsConnect({ socket: t, servername, rejectUnauthorized: false });
  await new Promise((r) => tls.once('error', r).once('close', r));
  t.destroy();
}

describe('a late ClientHello', () => {
  it('is checked whenever it comes: a blocked name after 0 s, 3.5 s or 10 s reaches nothing, over CONNECT and SOCKS5', async () => {
    await policy(['blocked.test']);
    const runs = ([0, 3500, 10_000] as const).flatMap((delayMs) =>
      (['connect', 'socks5'] as const).map(async (protocol) => {
        const t = await tunnel(protocol);
        const closed = socketClosed(t);
        const started = Date.now();
        await lateHello(t, 'www.blocked.test', delayMs);
        await closed;
        return { delayMs, protocol, waited: Date.now() - started };
      }),
    );
    const before = target.closed.length;
    const done = await Promise.all(runs);
    for (const r of done) expect(r.waited, `${r.protocol} after ${r.delayMs} ms`).toBeGreaterThanOrEqual(r.delayMs);
    const conns = (await target.closedCount(before + 6)).slice(before);
    expect(conns.map((c) => c.bytesRead)).toEqual([0, 0, 0, 0, 0, 0]);
    await stack.gateway.flush();
    const log = await u.client.get<{ connections: Array<{ billedBytes: string; reason: string }> }>('/api/connections?outcome=blocked');
    expect(log.body.connections.filter((c) => c.reason === 'Target blocked by policy (TLS server name www.blocked.test)')).toHaveLength(6);
  });

  it('an allowed name after 3.5 s is relayed; a target that speaks first (SMTP) is heard while the client waits', async () => {
    await policy(['blocked.test']);
    for (const protocol of ['connect', 'socks5'] as const) {
      expect(await targetRead(async () => lateHello(await tunnel(protocol), 'allowed.test', 3500)), protocol).toBeGreaterThan(100);
    }
    const heard: string[] = [];
    const greeter = createNetServer((c) => {
      c.on('data', (d: Buffer) => heard.push(d.toString('latin1')));
      c.write('220 smtp.allowed ready\r\n');
    });
    greeter.listen(0, '127.0.0.1');
    await once(greeter, 'listening');
    const greeterPort = (greeter.address() as AddressInfo).port;
    try {
      for (const protocol of ['connect', 'socks5'] as const) {
        // One listener from the first byte: the greeting may come in the same packet as the gateway's answer.
        const t = netConnect({ host: '127.0.0.1', port: stack.port });
        let got = '';
        t.on('data', (d: Buffer) => (got += d.toString('latin1')));
        if (protocol === 'connect') t.write(`CONNECT 127.0.0.1:${greeterPort} HTTP/1.1\r\n${auth()}\r\n`);
        else for (const c of socksRequest('127.0.0.1', greeterPort)) t.write(c);
        while (!got.endsWith('220 smtp.allowed ready\r\n')) await once(t, 'data');
        await sleep(3500);
        t.write('EHLO client.example\r\n');
        while (!heard.includes('EHLO client.example\r\n')) await sleep(50);
        heard.length = 0;
        t.destroy();
      }
    } finally {
      greeter.close();
    }
  });

  it('keeps the timeouts: a silent client is closed by the idle timeout, half a hello by the handshake deadline', async () => {
    await policy(['blocked.test']);
    const quick = await startGateway(stack.server, { targetPolicyPollMs: 200, idleTimeoutMs: 1500, handshakeTimeoutMs: 1000 });
    const port = (quick.server.address() as AddressInfo).port;
    try {
      for (const protocol of ['connect', 'socks5'] as const) {
        let t = await tunnel(protocol, port);
        let started = Date.now();
        await socketClosed(t);
        expect(Date.now() - started, `${protocol}: silent`).toBeLessThan(8000);
        // The first 20 bytes of a ClientHello, and no more.
        t = await tunnel(protocol, port);
        t.write(Buffer.from([22, 3, 1, 1, 0, 1, 0, 0, 252, 3, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
        started = Date.now();
        await socketClosed(t);
        expect(Date.now() - started, `${protocol}: half a hello`).toBeLessThan(6000);
      }
    } finally {
      await quick.close();
    }
  });
});

/** A loopback origin that answers with the Host it was sent. */
async function hostEcho() {
  const seen: IncomingHttpHeaders[] = [];
  const server = createHttpServer((req, res) => {
    seen.push(req.headers);
    res.end(`host ${req.headers.host}\n`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('the Host header', () => {
  it('is checked on a forwarded request: a blocked Host is 403 and reaches nothing; any other goes as the URI authority', async () => {
    await policy(['blocked.test']);
    const echo = await hostEcho();
    try {
      const send = (hostHeader: string) =>
        answer(stack.port, `GET http://127.0.0.1:${echo.port}/ HTTP/1.1\r\nHost: ${hostHeader}\r\n${auth()}Connection: close\r\n\r\n`);
      for (const host of ['blocked.test', 'www.blocked.test:80', 'WWW.Blocked.Test.']) {
        const refused = await send(host);
        expect(refused, host).toMatch(/^HTTP\/1\.1 403 /);
        expect(refused).toContain('\r\n\r\nTarget blocked by policy\n');
      }
      expect(echo.seen).toHaveLength(0);
      const ok = await send('other.test');
      expect(ok).toMatch(/^HTTP\/1\.1 200 /);
      expect(ok).toContain(`host 127.0.0.1:${echo.port}\n`);
      // The URI's host still decides too.
      expect(await forwardTo('www.blocked.test', `127.0.0.1:${target.port}`)).toMatch(/^HTTP\/1\.1 403 [^]*Target blocked by policy/);
      // A second request on a kept connection is checked as well.
      const kept = await new Promise<string>((resolve) => {
        const s = netConnect({ host: '127.0.0.1', port: stack.port });
        let got = '';
        s.on('data', (d: Buffer) => (got += d.toString('latin1')));
        s.on('close', () => resolve(got));
        s.write(`GET http://127.0.0.1:${echo.port}/ HTTP/1.1\r\nHost: a.test\r\n${auth()}\r\n`);
        s.write(`GET http://127.0.0.1:${echo.port}/ HTTP/1.1\r\nHost: blocked.test\r\n${auth()}\r\n`);
      });
      expect(kept).toMatch(/^HTTP\/1\.1 200 [^]*host 127\.0\.0\.1:\d+\nHTTP\/1\.1 403 [^]*Target blocked by policy\n$/);
      expect(echo.seen).toHaveLength(2);
    } finally {
      await echo.close();
    }
  });

  it("is checked as a tunnel's first request, like a TLS server name, whenever it comes", async () => {
    await policy(['blocked.test']);
    const viaTunnel = (protocol: 'connect' | 'socks5', request: string, delayMs: number) =>
      targetRead(async () => {
        const t = await tunnel(protocol);
        t.on('error', () => undefined);
        t.resume();
        await sleep(delayMs);
        t.write(request);
        await socketClosed(t);
      });
    for (const protocol of ['connect', 'socks5'] as const) {
      for (const delayMs of [0, 3500]) {
        expect(await viaTunnel(protocol, 'GET / HTTP/1.1\r\nHost: www.blocked.test\r\n\r\n', delayMs), `${protocol} ${delayMs}`).toBe(0);
      }
      expect(await viaTunnel(protocol, 'GET / HTTP/1.1\r\nUser-Agent: x\r\nhost: blocked.test:80\r\n\r\n', 0)).toBe(0);
      expect(await viaTunnel(protocol, 'GET http://blocked.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n', 0)).toBe(0);
      expect(await viaTunnel(protocol, 'GET / HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n', 0)).toBeGreaterThan(0);
    }
  });
});

/** Every spelling of 127.0.0.1 the attack used, none of them dotted-quad decimal. */
const SPELLINGS = ['127.1', '2130706433', '0x7f000001', '0x7f.0.0.1', '0177.0.0.1', '127.000.000.001'];

describe('numeric spellings of an IPv4 address', () => {
  it('are raw IPs to blockRawIp: 403 over CONNECT, forward (URI or Host) and SOCKS5', async () => {
    await policy([], true);
    for (const host of SPELLINGS) {
      const connect = await connectTo(host);
      expect(connect, host).toMatch(/^HTTP\/1\.1 403 /);
      expect(connect).toContain('\r\n\r\nTarget blocked by policy\n');
      expect(await forwardTo(host, `${host}:${target.port}`), host).toMatch(/^HTTP\/1\.1 403 [^]*\r\n\r\nTarget blocked by policy\n$/);
      expect(await forwardTo('localhost', host), host).toMatch(/^HTTP\/1\.1 403 [^]*\r\n\r\nTarget blocked by policy\n$/);
      expect(await socksTo(host), host).toBe(2);
    }
    // A name still passes.
    expect(await connectTo('localhost')).toMatch(/^HTTP\/1\.1 200 /);
    await policy([], false);
  });

  it('are judged as the address they name by the private-address rule', async () => {
    await policy([], false);
    const strict = await startGateway(stack.server, { allowPrivate: false, targetPolicyPollMs: 200 });
    const port = (strict.server.address() as AddressInfo).port;
    try {
      for (const host of SPELLINGS) {
        expect(await connectTo(host, port), host).toMatch(/^HTTP\/1\.1 403 [^]*Destination 127\.0\.0\.1 is a private address/);
        expect(await forwardTo(host, `${host}:${target.port}`, port), host).toMatch(/^HTTP\/1\.1 403 [^]*is a private address/);
        expect(await socksTo(host, port), host).toBe(2);
      }
    } finally {
      await strict.close();
    }
  });

  it('that name no address are a 400 "Bad request: invalid target host" (SOCKS5: host unreachable)', async () => {
    await policy([], false);
    for (const host of ['256.0.0.1', '1.2.3.4.5', '08.0.0.1', '0x100000000', '127.0.0.0x100']) {
      const connect = await connectTo(host);
      expect(connect, host).toMatch(/^HTTP\/1\.1 400 /);
      expect(connect).toContain('\r\n\r\nBad request: invalid target host\n');
      expect(await socksTo(host), host).toBe(4);
      expect(await forwardTo(host, 'localhost'), host).toMatch(/^HTTP\/1\.1 400 [^]*\r\n\r\nBad request: invalid target host\n$/);
    }
    const badHost = await forwardTo('localhost', '0x7f.0.0.1.9');
    expect(badHost).toMatch(/^HTTP\/1\.1 400 [^]*\r\n\r\nBad request: invalid target host\n$/);
  });
});
