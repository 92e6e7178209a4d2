import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_RATE_LIMITS, type ApiConfig, type ApiDeps, type RateLimitConfig } from '@proxyhub/api';
import type { Database } from '@proxyhub/db';
import { createTestDb } from '@proxyhub/db/testing';
import { HttpClient } from './http-client';
import { readOutbox, type Mail } from './mail';

export const INTERNAL_KEY = 'test-internal-key-0123456789abcdef';

/** Generous limits so ordinary tests never trip them; rate-limit tests pass their own. */
export const RELAXED_LIMITS: RateLimitConfig = Object.fromEntries(
  Object.keys(DEFAULT_RATE_LIMITS).map((k) => [k, { points: 100_000, durationSeconds: 60 }]),
) as RateLimitConfig;

/** What the kit needs of the parts the server app's `createServer` returns (they hold more). */
export interface ServerPartsLike {
  app: { listen(opts: { host: string; port: number }): Promise<string>; server: { address(): AddressInfo | string | null } };
  deps: ApiDeps;
  database: Database;
  close(): Promise<void>;
}

/** The Telegram bot of a test server, pointed at a fake Bot API (telegram/bot.ts's options). */
export interface TestTelegramOptions {
  token: string;
  webhookSecret: string;
  apiRoot?: string;
  outboxPollMs?: number;
  chatSpacingMs?: number;
}

/** The options the kit passes to the server app's `createServer`. */
export interface ServerFactoryOptions {
  config: ApiConfig;
  database: Database;
  logLevel: string;
  logDestination?: { write(line: string): void };
  trustProxy?: number | string[] | boolean;
  smtpUrl?: string;
  redisUrl?: string;
  redisKeyPrefix?: string;
  webDistDir?: string;
  admin?: { username: string; password: string };
  telegram?: TestTelegramOptions;
  /** The periodic jobs (balance watch, lease reconciliation, ...), as a real server runs them. */
  backgroundJobs?: boolean;
}

/** `createServer` of apps/server, handed in by the test's app (a package never imports an app). */
export type ServerFactory<P extends ServerPartsLike> = (opts: ServerFactoryOptions) => Promise<P>;

export type TestServer<P extends ServerPartsLike = ServerPartsLike> = P & {
  url: string;
  dataDir: string;
  config: ApiConfig;
  /** A fetch-based client with its own cookie jar, as one browser would be. `ip` is sent as
   * X-Forwarded-For and only counts when the server was started with `trustProxy`. */
  client(opts?: { origin?: string | null; ip?: string }): HttpClient;
  /** Mail written to the outbox for one address, oldest first. */
  mails(to: string): Mail[];
  /** Waits for mail and other background work started by requests. */
  settle(): Promise<void>;
};

/** Server-level options a test may set besides the API config. */
export interface TestServerOptions {
  listen?: boolean;
  /** Proxies in front: a hop count or their addresses; `true` is one hop (the request's own X-Forwarded-For). */
  trustProxy?: number | string[] | boolean;
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
  logDestination?: { write(line: string): void };
  logLevel?: string;
  /** The Telegram bot, pointed at a fake Bot API. */
  telegram?: TestTelegramOptions;
  /** Run the server's periodic jobs (off by default: tests drive them). */
  backgroundJobs?: boolean;
}

export type TestServerInput = Partial<ApiConfig> & TestServerOptions;

/**
 * Binds the kit to the server app's factory: `startTestServer(input)` then starts the real server
 * on a loopback port with a fresh database (PGlite, or one of its own on DATABASE_URL).
 */
export function testServerStarter<P extends ServerPartsLike>(createServer: ServerFactory<P>) {
  return (input: TestServerInput = {}) => startTestServer(createServer, input);
}

async function startTestServer<P extends ServerPartsLike>(createServer: ServerFactory<P>, input: TestServerInput): Promise<TestServer<P>> {
  const {
    listen: _listen,
    trustProxy,
    smtpUrl,
    redisUrl,
    redisKeyPrefix,
    webDistDir,
    port = 0,
    admin,
    logDestination,
    logLevel,
    telegram,
    backgroundJobs,
    ...overrides
  } = input;
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
    // Mail and new accounts right after the answer: tests wait for them (settle) and must not wait long.
    afterAnswerSpreadMs: 0,
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
    ...(telegram ? { telegram } : {}),
    ...(backgroundJobs ? { backgroundJobs } : {}),
  });
  await parts.app.listen({ host: '127.0.0.1', port });
  const addr = parts.app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return Object.assign(parts, {
    url,
    dataDir,
    config,
    client: (opts?: { origin?: string | null; ip?: string }) => new HttpClient(url, opts?.origin === undefined ? config.publicUrl : opts.origin, opts?.ip),
    mails: (to: string) => readOutbox(dataDir, to),
    async settle() {
      await Promise.allSettled([...parts.deps.background]);
    },
  });
}
