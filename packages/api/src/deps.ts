import { createSessionManagers, SecretBox, type SessionManagers } from '@proxyhub/auth';
import type { Db } from '@proxyhub/db';
import type { ApiConfig } from './config';
import type { Mailer } from './mail';
import type { RateLimiter } from './rate-limit';

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Long-lived services shared by every request. */
export interface ApiDeps {
  db: Db;
  config: ApiConfig;
  sessions: SessionManagers;
  secrets: SecretBox;
  mailer: Mailer;
  rateLimiter: RateLimiter;
  logger: Logger;
  /** Work started but not awaited by a request (mail); awaited on shutdown and by tests. */
  background: Set<Promise<unknown>>;
}

export function createApiDeps(input: Omit<ApiDeps, 'sessions' | 'secrets' | 'background'>): ApiDeps {
  return {
    ...input,
    sessions: createSessionManagers(input.db, { secure: input.config.production }),
    secrets: new SecretBox(input.config.appSecret),
    background: new Set(),
  };
}

/** Runs a task after the response without letting a failure escape; tracked so shutdown can wait. */
export function inBackground(deps: ApiDeps, what: string, task: () => Promise<unknown>): void {
  const p = task()
    .catch((err: unknown) => deps.logger.error({ err, what }, 'background task failed'))
    .finally(() => deps.background.delete(p));
  deps.background.add(p);
}
