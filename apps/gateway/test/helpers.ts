import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { checkLedger, checkUserLedger, credit, userUsageTotals } from '@proxyhub/api';
import { buildProxyUsername, type ProxyLocation } from '@proxyhub/core';
import { INTERNAL_KEY, signedInUser, startTestServer, type HttpClient, type TestServer } from '../../server/test/helpers';
import { createGateway, type Gateway, type GatewayOptions } from '../src/gateway';

export { INTERNAL_KEY };

export interface Stack {
  server: TestServer;
  gateway: Gateway;
  port: number;
  proxyUrl: string;
  close(): Promise<void>;
}

/** The real server (PGlite or DATABASE_URL) and our gateway, in-process, on loopback ports. */
export async function startStack(gatewayOpts: Partial<GatewayOptions> = {}): Promise<Stack> {
  const server = await startTestServer();
  const gateway = await startGateway(server, gatewayOpts);
  const port = (gateway.server.address() as AddressInfo).port;
  return {
    server,
    gateway,
    port,
    proxyUrl: `http://127.0.0.1:${port}`,
    async close() {
      await gateway.close();
      await server.close();
    },
  };
}

export async function startGateway(server: TestServer, opts: Partial<GatewayOptions> = {}): Promise<Gateway> {
  const gateway = createGateway({
    gatewayId: `test-${randomUUID().slice(0, 8)}`,
    serverUrl: server.url,
    internalApiKey: INTERNAL_KEY,
    allowPrivate: true,
    ...opts,
  });
  await gateway.listen(0, '127.0.0.1');
  return gateway;
}

export interface ProxyUser {
  userId: string;
  /** Signed in as this user (cookie jar). */
  client: HttpClient;
  proxyUserId: string;
  proxyPassword: string;
  username(location?: ProxyLocation, minutes?: number, token?: string): string;
}

/** A registered, verified user (through the product's API) holding `bytes` of credit. */
export async function userWithCredits(server: TestServer, bytes: bigint): Promise<ProxyUser> {
  const { user, client } = await signedInUser(server);
  if (bytes > 0n) await addCredits(server, user.id, bytes);
  return {
    userId: user.id,
    client,
    proxyUserId: user.proxyUserId,
    proxyPassword: user.proxyPassword,
    username: (location = { country: 'US' }, minutes = 60, token) => buildProxyUsername({ proxyUserId: user.proxyUserId, location, durationMinutes: minutes, token }),
  };
}

export function addCredits(server: TestServer, userId: string, bytes: bigint) {
  return server.database.db.transaction((tx) => credit(tx, { wallet: { userId }, bytes, kind: 'admin_adjustment', sourceKey: `test:${randomUUID()}` }));
}

/** Remaining Data and Total Usage as the user's own session call shows them (bytes). */
export async function balances(u: ProxyUser) {
  const r = await u.client.get<{ user: { credits: number; total_usage_bytes: number } }>('/auth/user');
  if (r.status !== 200) throw new Error(`GET /auth/user: ${r.status}`);
  return { credits: BigInt(r.body.user.credits), usage: BigInt(r.body.user.total_usage_bytes) };
}

/** Hourly usage of the user's proxy accounts, summed. */
export async function hourlyUsage(server: TestServer, userId: string) {
  const r = await userUsageTotals(server.database.db, userId);
  return { up: Number(r.bytesUp), down: Number(r.bytesDown), sessions: r.sessions };
}

export async function expectLedgerHolds(server: TestServer, userId: string) {
  const all = await checkLedger(server.database.db);
  const mine = await checkUserLedger(server.database.db, userId);
  if (!all.ok || !mine.ok) throw new Error(`ledger invariant broken: ${JSON.stringify({ all, mine }, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
  return mine;
}

export interface TargetConnection {
  bytesRead: number;
  bytesWritten: number;
}

/**
 * A loopback HTTP target: GET /download?bytes=N sends N bytes, POST /upload counts the body,
 * anything else says hello. Remembers the bytes of every closed connection, to compare exactly.
 */
export async function startTarget() {
  const closed: TargetConnection[] = [];
  const waiters: Array<() => void> = [];
  const payload = Buffer.alloc(64 * 1024, 'x');
  const server: HttpServer = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://target');
    if (url.pathname === '/download') {
      let left = Number(url.searchParams.get('bytes') ?? '0');
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(left) });
      const pump = () => {
        while (left > 0) {
          const n = Math.min(left, payload.length);
          left -= n;
          if (!res.write(n === payload.length ? payload : payload.subarray(0, n))) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
      return;
    }
    if (url.pathname === '/upload') {
      let n = 0;
      req.on('data', (c: Buffer) => (n += c.length));
      req.on('end', () => res.end(JSON.stringify({ received: n })));
      return;
    }
    res.end('hello from target\n');
  });
  server.on('connection', (s: Socket) => {
    s.on('close', () => {
      closed.push({ bytesRead: s.bytesRead, bytesWritten: s.bytesWritten });
      for (const w of waiters.splice(0)) w();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    closed,
    /** Resolves when at least n connections have closed. */
    async closedCount(n: number) {
      while (closed.length < n) await new Promise<void>((r) => waiters.push(r));
      return closed;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
    server,
  };
}

export interface CurlResult {
  code: number;
  status: number;
  stdout: string;
  stderr: string;
}

/** curl as a child process (async: the server and gateway live in this process). */
export function curl(args: string[]): Promise<CurlResult> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '--max-time', '30', '-w', '\n%{http_code}', ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const i = stdout.lastIndexOf('\n');
      resolve({
        code: err ? ((err as { code?: number }).code ?? 1) : 0,
        status: Number(stdout.slice(i + 1)),
        stdout: stdout.slice(0, i),
        stderr,
      });
    });
  });
}

/** A raw TCP client: sends bytes, collects everything until the gateway closes. */
export function rawExchange(port: number, chunks: Buffer[], opts: { endAfter?: boolean } = {}): Promise<{ data: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    const parts: Buffer[] = [];
    s.on('connect', () => {
      for (const c of chunks) s.write(c);
      if (opts.endAfter) s.end();
    });
    s.on('data', (d: Buffer) => parts.push(d));
    s.on('error', () => undefined);
    s.on('close', () => resolve({ data: Buffer.concat(parts), closed: true }));
  });
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** Open file descriptors of this process. */
export async function openFds(): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir('/proc/self/fd')).length;
}
