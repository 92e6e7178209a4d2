import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { DestinationStream, Logger as PinoLogger } from 'pino';
import { createApiDeps, createMailer, createRateLimiter, type ApiConfig, type ApiDeps } from '@proxyhub/api';
import type { Database } from '@proxyhub/db';
import { buildApp, defaultContentDir, drainHandlers } from './app';
import { startBackgroundJobs } from './lifecycle';
import { createServerLoggers } from './logger';
import type { TrustProxy } from './trust-proxy';
import { startTelegramBot, type TelegramBot, type TelegramOptions } from './telegram/bot';

export interface ServerParts {
  app: FastifyInstance;
  deps: ApiDeps;
  /** The Telegram bot, when configured and getMe answered. */
  telegram: TelegramBot | null;
  database: Database;
  logger: PinoLogger;
  /** Stops accepting requests, waits for in-flight work and background tasks, closes the database. */
  close(): Promise<void>;
}

export interface CreateServerOptions {
  config: ApiConfig;
  database: Database;
  smtpUrl?: string | undefined;
  mailFrom?: string;
  redisUrl?: string | undefined;
  /** Namespace for rate-limit keys in Redis (several deployments or test runs on one Redis). */
  redisKeyPrefix?: string | undefined;
  logLevel?: string;
  /** Where log lines go (stdout unless given; tests capture them). */
  logDestination?: DestinationStream;
  /** Proxies in front (a hop count or their addresses); `true` means one hop. */
  trustProxy?: TrustProxy | boolean | undefined;
  webDistDir?: string | undefined;
  admin?: { username: string; password: string | undefined };
  /** Tests run without periodic jobs unless they ask. */
  backgroundJobs?: boolean;
  /** Node process metrics in /metrics (the real process). */
  processMetrics?: boolean;
  /** TELEGRAM_BOT_TOKEN and the rest: the bot and its webhook route exist only with it. */
  telegram?: TelegramOptions | null | undefined;
}

/** Wires the database, mail, rate limits and the Fastify app; shared by main.ts, tests and benches. */
export async function createServer(opts: CreateServerOptions): Promise<ServerParts> {
  const { logger, mailLogger } = createServerLoggers({
    level: opts.logLevel ?? 'info',
    production: opts.config.production,
    ...(opts.logDestination ? { destination: opts.logDestination } : {}),
  });
  const redis = opts.redisUrl ? new Redis(opts.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: false }) : undefined;
  // ioredis reconnects by itself; without a listener every failed attempt is an unhandled 'error'.
  let redisDown = false;
  redis?.on('error', (err: Error) => {
    if (!redisDown) logger.warn({ err: err.message }, 'redis unreachable: rate limits fall back to memory');
    redisDown = true;
  });
  redis?.on('ready', () => {
    redisDown = false;
  });
  // Commands fail fast while Redis is away (no offline queue), so give the first connection a
  // moment: counters then start in Redis rather than in the fallback.
  if (redis && redis.status !== 'ready') {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, 2000);
      redis.once('ready', done);
    });
  }
  // The caller's own config object, not a copy: a running server's settings are changed on it (tests
  // point the line test at their gateway once it listens).
  opts.config.contentDir ??= defaultContentDir();
  const deps = createApiDeps({
    db: opts.database.db,
    config: opts.config,
    mailer: createMailer({
      smtpUrl: opts.smtpUrl,
      from: opts.mailFrom ?? 'ProxyHub <no-reply@proxyhub.local>',
      outboxDir: join(opts.config.dataDir, 'mail'),
      logger: mailLogger,
    }),
    rateLimiter: createRateLimiter(opts.config.rateLimits, redis, opts.redisKeyPrefix),
    logger,
  });
  const telegram = opts.telegram ? await startTelegramBot(deps, opts.telegram, logger) : null;
  const app = await buildApp({
    deps,
    telegram,
    loggerInstance: logger,
    trustProxy: opts.trustProxy,
    webDistDir: opts.webDistDir,
    database: opts.database,
    processMetrics: opts.processMetrics ?? false,
  });
  const stopJobs = await startBackgroundJobs({ deps, admin: opts.admin, periodic: opts.backgroundJobs ?? false });
  let closed: Promise<void> | undefined;
  return {
    app,
    deps,
    telegram,
    database: opts.database,
    logger,
    close() {
      closed ??= (async () => {
        await stopJobs();
        await app.close();
        await drainHandlers(app);
        await telegram?.stop();
        await Promise.allSettled([...deps.background]);
        redis?.disconnect();
        await opts.database.close();
      })();
      return closed;
    },
  };
}
