/**
 * The product as it runs: the built server (apps/server/dist/main.js) and gateway
 * (apps/gateway/dist/main.js) as child processes on loopback ports, so a test can kill -9 them.
 * The vitest project that runs these tests builds both first (build.setup.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SocksClient } from 'socks';
import { checkLedger, checkUserLedger } from '@proxyhub/api';
import { createDb } from '@proxyhub/db';
import { HttpClient, STRONG_PASSWORD, basic, linkToken, uniqueEmail, type Mail } from '@proxyhub/testing';

const REPO = resolve(import.meta.dirname, '../../../..');
const INTERNAL_KEY = 'crash-test-internal-key-0123456789abcdef';

export async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** What every process of one product run shares (the ready lines are logged at info). */
export function productEnv(dataDir: string, internalKey: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, NODE_ENV: 'development', DATA_DIR: dataDir, INTERNAL_API_KEY: internalKey, LOG_LEVEL: 'info' };
}

/** One of our processes: started, killed (any signal) and started again with the same settings. */
export class ProductProcess {
  child: ChildProcess | null = null;
  /** Everything it printed, for the failure message. */
  output = '';

  constructor(
    readonly name: string,
    private readonly entry: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly readyLine: string,
  ) {}

  async start(timeoutMs = 60_000): Promise<void> {
    const child = spawn(process.execPath, [resolve(REPO, this.entry)], { cwd: REPO, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (text: string) => {
        this.output += text;
        if (text.includes(this.readyLine)) ready();
      });
    }
    const exited = once(child, 'exit').then(([code, signal]) => {
      throw new Error(`${this.name} exited (${String(signal ?? code)}) before it was ready:\n${this.output.slice(-4000)}`);
    });
    let timer!: NodeJS.Timeout;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.name} not ready after ${timeoutMs} ms:\n${this.output.slice(-4000)}`)), timeoutMs);
    });
    try {
      await Promise.race([isReady, exited, timeout]);
    } finally {
      clearTimeout(timer);
      exited.catch(() => undefined);
    }
  }

  /** Sends the signal and waits for the process to be gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = once(child, 'exit');
    child.kill(signal);
    await gone;
    this.child = null;
  }
}

export interface Product {
  server: ProductProcess;
  gateway: ProductProcess;
  serverUrl: string;
  gatewayPort: number;
  dataDir: string;
  /** Stops both (gateway first, so its last report reaches the server) and checks the ledger in the database. */
  stopAndCheckLedger(userIds: string[]): Promise<void>;
}

/** A fresh data directory (or the DATABASE_URL of this run), a server and a gateway. */
export async function startProduct(gatewayEnv: Record<string, string> = {}): Promise<Product> {
  const dataDir = mkdtempSync(join(tmpdir(), 'proxyhub-crash-'));
  const serverPort = await freePort();
  const gatewayPort = await freePort();
  const serverUrl = `http://127.0.0.1:${serverPort}`;
  const base: NodeJS.ProcessEnv = {
    ...productEnv(dataDir, INTERNAL_KEY),
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  };
  const server = new ProductProcess(
    'server',
    'apps/server/dist/main.js',
    {
      ...base,
      HOST: '127.0.0.1',
      PORT: String(serverPort),
      PUBLIC_URL: serverUrl,
      APP_SECRET: 'crash-test-app-secret-0123456789abcdef',
      ADMIN_PASSWORD: 'CrashTest123',
    },
    'ProxyHub server ready',
  );
  const gateway = new ProductProcess(
    'gateway',
    'apps/gateway/dist/main.js',
    {
      ...base,
      // The relay itself, without the re-launching parent: the process a kill -9 is meant for.
      PROXYHUB_GATEWAY_CHILD: '1',
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: String(gatewayPort),
      // No entry ports (20000-20099 by default): processes of other tests may hold them.
      GATEWAY_ENTRY_PORTS: 'off',
      GATEWAY_SERVER_URL: serverUrl,
      GATEWAY_ALLOW_PRIVATE: '1',
      GATEWAY_METRICS_PORT: 'off',
      GATEWAY_ID: `crash-${randomUUID().slice(0, 8)}`,
      ...gatewayEnv,
    },
    'ProxyHub gateway ready',
  );
  await server.start();
  await gateway.start();
  return {
    server,
    gateway,
    serverUrl,
    gatewayPort,
    dataDir,
    async stopAndCheckLedger(userIds) {
      await gateway.stop();
      await server.stop();
      const database = await createDb(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL, max: 1 } : { dataDir: join(dataDir, 'pglite') });
      try {
        const all = await checkLedger(database.db);
        const mine = await Promise.all(userIds.map((id) => checkUserLedger(database.db, id)));
        if (!all.ok || mine.some((m) => !m.ok || m.leased !== 0n)) {
          throw new Error(`ledger invariant broken: ${JSON.stringify({ all, mine }, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
        }
      } finally {
        await database.close();
      }
    },
  };
}

export interface RemoteUser {
  id: string;
  client: HttpClient;
  proxyUserId: string;
  proxyPassword: string;
  username: string;
}

/** Registers, verifies (link from the mail outbox) and signs in, then redeems a code for `gb` GB. */
export async function userWithGB(p: Product, gb: number): Promise<RemoteUser> {
  const client = new HttpClient(p.serverUrl, p.serverUrl);
  const email = uniqueEmail('crash');
  const reg = await client.post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Crash Test' });
  if (reg.status !== 200) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
  const mail = await waitForMail(p.dataDir, email);
  const verify = await client.get(`/auth/verify-email?token=${linkToken(mail)}`);
  if (verify.status !== 200) throw new Error(`verify: ${verify.status}`);
  const login = await client.post<{ user: { id: string; proxyUserId: string; proxyPassword: string } }>('/auth/login', { email, password: STRONG_PASSWORD });
  if (login.status !== 200) throw new Error(`login: ${login.status}`);
  const internal = new HttpClient(p.serverUrl, null);
  internal.bearer = INTERNAL_KEY;
  const made = await internal.post<{ codes: Array<{ code: string }> }>('/admin/codes/create', { creditsGB: gb, quantity: 1, expiresAt: null });
  if (made.status !== 200) throw new Error(`create code: ${made.status} ${JSON.stringify(made.body)}`);
  const redeemed = await client.post('/auth/redeem-code', { code: made.body.codes[0]!.code });
  if (redeemed.status !== 200) throw new Error(`redeem: ${redeemed.status}`);
  const { user } = login.body;
  return { id: user.id, client, proxyUserId: user.proxyUserId, proxyPassword: user.proxyPassword, username: `${user.proxyUserId}_US_60_CRASHTST` };
}

async function waitForMail(dataDir: string, to: string): Promise<Mail> {
  const dir = join(dataDir, 'mail');
  for (let i = 0; i < 200; i++) {
    let files: string[] = [];
    try {
      files = readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort();
    } catch {
      // not written yet
    }
    const mails = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Mail).filter((m) => m.to === to);
    if (mails.length) return mails.at(-1)!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail for ${to}`);
}

/** Remaining Data and Total Usage as GET /auth/user shows them (bytes). */
export async function billing(u: RemoteUser): Promise<{ credits: number; usage: number }> {
  const r = await u.client.get<{ user: { credits: number; total_usage_bytes: number } }>('/auth/user');
  if (r.status !== 200) throw new Error(`GET /auth/user: ${r.status}`);
  return { credits: r.body.user.credits, usage: r.body.user.total_usage_bytes };
}

/**
 * A loopback HTTP target: GET /download?bytes=N&rate=R sends N bytes at R bytes/s (it catches
 * up after a stall by at most a second's worth).
 */
export async function startPacedTarget() {
  const payload = Buffer.alloc(64 * 1024, 'y');
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://target');
    let left = Number(url.searchParams.get('bytes') ?? '0');
    const rate = Number(url.searchParams.get('rate') ?? '0');
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(left) });
    res.on('error', () => undefined);
    let budget = 0;
    let last = Date.now();
    let waiting = false;
    const timer = setInterval(() => {
      const now = Date.now();
      budget = Math.min(budget + ((now - last) / 1000) * rate, rate);
      last = now;
      if (waiting) return;
      while (left > 0 && budget >= Math.min(left, payload.length)) {
        const n = Math.min(left, payload.length);
        left -= n;
        budget -= n;
        if (!res.write(n === payload.length ? payload : payload.subarray(0, n))) {
          waiting = true;
          res.once('drain', () => (waiting = false));
          break;
        }
      }
      if (left === 0) {
        clearInterval(timer);
        res.end();
      }
    }, 10);
    res.on('close', () => clearInterval(timer));
  });
  server.on('connection', (s: Socket) => s.on('error', () => undefined));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export interface Download {
  protocol: 'connect' | 'socks5';
  /** Bytes the client sent and received through the tunnel (after the proxy handshake). */
  sent: number;
  received: number;
  /** The longest time without a byte (a pause while the gateway waited for the server). */
  longestStallMs: number;
  /** Resolves when the tunnel closes. */
  done: Promise<void>;
}

/** Opens a tunnel through the gateway (CONNECT or SOCKS5) and downloads `bytes` at `rate`. */
export async function download(
  gatewayPort: number,
  u: RemoteUser,
  protocol: Download['protocol'],
  targetPort: number,
  bytes: number,
  rate: number,
): Promise<Download> {
  let socket: Socket;
  if (protocol === 'socks5') {
    const r = await SocksClient.createConnection({
      proxy: { host: '127.0.0.1', port: gatewayPort, type: 5, userId: u.username, password: u.proxyPassword },
      command: 'connect',
      destination: { host: '127.0.0.1', port: targetPort },
    });
    socket = r.socket;
  } else {
    socket = await connectTunnel(gatewayPort, u, targetPort);
  }
  const request = `GET /download?bytes=${bytes}&rate=${rate} HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n`;
  const d: Download = { protocol, sent: Buffer.byteLength(request), received: 0, longestStallMs: 0, done: Promise.resolve() };
  let last = Date.now();
  socket.on('data', (chunk: Buffer) => {
    const now = Date.now();
    if (now - last > d.longestStallMs) d.longestStallMs = now - last;
    last = now;
    d.received += chunk.length;
  });
  socket.on('error', () => undefined);
  d.done = new Promise((r) => socket.once('close', () => r()));
  socket.resume();
  socket.write(request);
  return d;
}

function connectTunnel(gatewayPort: number, u: RemoteUser, targetPort: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: gatewayPort });
    socket.write(`CONNECT 127.0.0.1:${targetPort} HTTP/1.1\r\nProxy-Authorization: ${basic(u.username, u.proxyPassword)}\r\n\r\n`);
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.pause();
      if (!buf.toString('latin1', 0, end).startsWith('HTTP/1.1 200')) return reject(new Error(`CONNECT refused: ${buf.toString()}`));
      if (buf.length > end + 4) socket.unshift(buf.subarray(end + 4));
      resolve(socket);
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}
