import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { DEFAULT_RATE_LIMITS, type ApiConfig, type RateLimitConfig } from '@proxyhub/api';
import { createTestDb } from '@proxyhub/db/testing';
import { createServer, type ServerParts } from '../src/server';

export const INTERNAL_KEY = 'test-internal-key-0123456789abcdef';

/** Generous limits so ordinary tests never trip them; rate-limit tests pass their own. */
export const RELAXED_LIMITS: RateLimitConfig = Object.fromEntries(
  Object.keys(DEFAULT_RATE_LIMITS).map((k) => [k, { points: 100_000, durationSeconds: 60 }]),
) as RateLimitConfig;

export interface TestServer extends ServerParts {
  url: string;
  dataDir: string;
  config: ApiConfig;
  /** A fetch-based client with its own cookie jar, as one browser would be. `ip` is sent as
   * X-Forwarded-For and only counts when the server was started with `trustProxy: true`. */
  client(opts?: { origin?: string | null; ip?: string }): HttpClient;
  /** Mail written to the outbox for one address, oldest first. */
  mails(to: string): Mail[];
  /** Waits for mail and other background work started by requests. */
  settle(): Promise<void>;
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  createdAt: string;
}

/** Server-level options a test may set besides the API config. */
export interface TestServerOptions {
  listen?: boolean;
  trustProxy?: boolean;
  smtpUrl?: string;
  redisUrl?: string;
  /** Prefix for rate-limit keys in Redis, so test runs never share counters. */
  redisKeyPrefix?: string;
  /** Built web app to serve (browser tests). */
  webDistDir?: string;
  /** Fixed port, so the config's publicUrl can name it (browser tests). */
  port?: number;
  admin?: { username: string; password: string };
  /** Capture log lines (at `logLevel`, default TEST_LOG_LEVEL or silent). */
  logDestination?: DestinationStream;
  logLevel?: string;
}

export async function startTestServer(input: Partial<ApiConfig> & TestServerOptions = {}): Promise<TestServer> {
  const { listen: _listen, trustProxy, smtpUrl, redisUrl, redisKeyPrefix, webDistDir, port = 0, admin, logDestination, logLevel, ...overrides } = input;
  const dataDir = mkdtempSync(join(tmpdir(), 'proxyhub-test-'));
  const database = await createTestDb();
  const config: ApiConfig = {
    production: false,
    publicUrl: 'http://localhost:3000',
    dataDir,
    appSecret: 'test-app-secret-0123456789abcdef',
    internalApiKey: INTERNAL_KEY,
    gateway: { publicHost: null, publicPort: 3001 },
    google: null,
    payments: { provider: 'sandbox', nowpayments: null },
    rateLimits: RELAXED_LIMITS,
    ...overrides,
  };
  const parts = await createServer({
    config,
    database,
    logLevel: logLevel ?? process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(logDestination ? { logDestination } : {}),
    ...(trustProxy ? { trustProxy } : {}),
    ...(smtpUrl ? { smtpUrl } : {}),
    ...(redisUrl ? { redisUrl } : {}),
    ...(redisKeyPrefix ? { redisKeyPrefix } : {}),
    ...(webDistDir ? { webDistDir } : {}),
    ...(admin ? { admin } : {}),
  });
  await parts.app.listen({ host: '127.0.0.1', port });
  const addr = parts.app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const server: TestServer = {
    ...parts,
    url,
    dataDir,
    config,
    client: (opts) => new HttpClient(url, opts?.origin === undefined ? config.publicUrl : opts.origin, opts?.ip),
    mails(to) {
      const dir = join(dataDir, 'mail');
      let files: string[] = [];
      try {
        files = readdirSync(dir).sort();
      } catch {
        return [];
      }
      return files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Mail).filter((m) => m.to === to);
    },
    async settle() {
      await Promise.allSettled([...parts.deps.background]);
    },
  };
  return server;
}

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/** Minimal browser stand-in: keeps cookies, sends JSON with an Origin header like a browser does. */
export class HttpClient {
  readonly cookies = new Map<string, string>();
  bearer: string | null = null;

  constructor(
    readonly baseUrl: string,
    private readonly origin: string | null,
    private readonly ip?: string,
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** The headers a browser would add to a request to our server: cookies, Origin, bearer, IP. */
  ambientHeaders(): Record<string, string> {
    const h: Record<string, string> = {};
    if (this.cookies.size) h.cookie = this.cookieHeader();
    if (this.origin) h.origin = this.origin;
    if (this.bearer) h.authorization = `Bearer ${this.bearer}`;
    if (this.ip) h['x-forwarded-for'] = this.ip;
    return h;
  }

  /** Applies a response's Set-Cookie headers to the jar. */
  storeCookies(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (!value || /max-age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** fetch with this client's cookies and headers; for @trpc/client's `fetch` option. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(this.ambientHeaders())) if (!headers.has(k)) headers.set(k, v);
    const res = await fetch(input, { ...init, headers, redirect: 'manual' });
    this.storeCookies(res);
    return res;
  };

  async request<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult<T>> {
    const h: Record<string, string> = { ...this.ambientHeaders(), ...headers };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers: h, body: payload, redirect: 'manual' });
    this.storeCookies(res);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = Record<string, unknown>>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = Record<string, unknown>>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body ?? {}, headers);
  }
}

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

export const STRONG_PASSWORD = 'Secret123';

export function linkToken(mail: Mail): string {
  const m = /token=([A-Za-z0-9_-]+)/.exec(mail.text);
  if (!m) throw new Error(`no token in mail: ${mail.text}`);
  return m[1]!;
}

/** Registers, verifies from the outbox and signs in: a ready user through the product's own API. */
export async function signedInUser(server: TestServer, name = 'Test User', opts: { client?: HttpClient } = {}) {
  const email = uniqueEmail();
  const client = opts.client ?? server.client();
  const reg = await client.post('/auth/register', { email, password: STRONG_PASSWORD, name });
  if (reg.status !== 200) throw new Error(`register failed: ${JSON.stringify(reg.body)}`);
  await server.settle();
  const token = linkToken(server.mails(email).at(-1)!);
  const verify = await client.get(`/auth/verify-email?token=${token}`);
  if (verify.status !== 200) throw new Error(`verify failed: ${JSON.stringify(verify.body)}`);
  const login = await client.post<{ user: { id: string; apiKey: string; proxyUserId: string; proxyPassword: string } }>('/auth/login', { email, password: STRONG_PASSWORD });
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  return { client, email, user: login.body.user };
}
