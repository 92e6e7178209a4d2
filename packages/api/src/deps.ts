import { randomInt } from 'node:crypto';
import { createSessions, SecretBox, type Sessions } from '@proxyhub/auth';
import type { Db } from '@proxyhub/db';
import { servedOverHttps, type ApiConfig } from './config';
import { sellerSignedMailer, type DraftMailer, type Mailer } from './mail';
import type { RateLimiter } from './rate-limit';
import { ReadCache } from './read-cache';
import { getSeller } from './services/site/seller';

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Long-lived services shared by every request. */
export interface ApiDeps {
  db: Db;
  config: ApiConfig;
  /** User and admin sign-in; `sessions.user.cookieName` names the cookie. */
  sessions: Sessions;
  secrets: SecretBox;
  /** Every mail goes out signed by the seller's settings as they are when it is sent. */
  mailer: DraftMailer;
  rateLimiter: RateLimiter;
  logger: Logger;
  /** Work started but not awaited by a request (mail); awaited on shutdown and by tests. */
  background: Set<Promise<unknown>>;
  /** Sessions, API keys and the user's view, held briefly; every write on this process clears it. */
  cache: ReadCache;
  /** The Telegram bot, once the server has started it (null without TELEGRAM_BOT_TOKEN). */
  telegram: TelegramPort | null;
  /** The clock plan periods run by (tests move it); the real time when absent. */
  now?: () => Date;
}

/** What the API needs from the server's Telegram bot. */
export interface TelegramPort {
  /** From getMe: link URLs are `https://t.me/<botUsername>?start=<code>`. */
  botUsername: string;
  /** Messages were queued and have committed: drain the outbox now rather than at the next poll. */
  kick(): void;
}

/** After a commit that may have queued Telegram messages. */
export function kickTelegram(deps: ApiDeps): void {
  deps.telegram?.kick();
}

/** How long another server process may still serve a revoked session or key (see read-cache.ts). */
export const READ_CACHE_TTL_MS = 1000;

export function createApiDeps(input: Omit<ApiDeps, 'sessions' | 'secrets' | 'background' | 'cache' | 'telegram' | 'mailer'> & { mailer: Mailer }): ApiDeps {
  return {
    ...input,
    mailer: sellerSignedMailer(input.mailer, () => getSeller(input.db)),
    telegram: null,
    sessions: createSessions(input.db, { secure: servedOverHttps(input.config) }),
    secrets: new SecretBox(input.config.appSecret),
    background: new Set(),
    cache: new ReadCache(READ_CACHE_TTL_MS),
  };
}

const queues = new WeakMap<ApiDeps, Map<string, Promise<unknown>>>();

/**
 * Background work starts this long after the answer: the answer is on its way and read by then, so
 * work done for one kind of answer (a mail for a known address) does not compete for the CPU with
 * its delivery, which a client sharing the machine could time.
 */
const BACKGROUND_DELAY_MS = 10;

/**
 * Runs a task after the response without letting a failure escape; tracked so shutdown can wait.
 * It starts once the answer has been written (after the current turn of the event loop), so work
 * done for one answer and not another never lengthens it (account enumeration by timing). Tasks
 * with the same `after` key run one after another, in the order they were started. With
 * `spreadMs` the start is put off by a random time up to that long (see AFTER_ANSWER_SPREAD_MS).
 */
export function inBackground(deps: ApiDeps, what: string, task: () => Promise<unknown>, opts: { after?: string; spreadMs?: number } = {}): void {
  let queue: Map<string, Promise<unknown>> | undefined;
  if (opts.after !== undefined) {
    queue = queues.get(deps) ?? new Map<string, Promise<unknown>>();
    queues.set(deps, queue);
  }
  const key = opts.after ?? '';
  const previous = queue?.get(key) ?? Promise.resolve();
  const p: Promise<unknown> = previous
    .then(() => new Promise<void>((resolve) => setTimeout(resolve, BACKGROUND_DELAY_MS + (opts.spreadMs ? randomInt(opts.spreadMs) : 0))))
    .then(task)
    .catch((err: unknown) => deps.logger.error({ err, what }, 'background task failed'))
    .finally(() => {
      deps.background.delete(p);
      if (queue?.get(key) === p) queue.delete(key);
    });
  deps.background.add(p);
  queue?.set(key, p);
}
