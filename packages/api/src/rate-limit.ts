/**
 * The counters behind the rate limits on the endpoints an attacker would hammer (sign-in, register,
 * resend, forgot, reset, redeem); which limits apply where is decided by procedure middleware
 * (`limits.ts`). In memory for one process; Redis when REDIS_URL is set so that several server
 * processes share the counters.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { DomainError } from '@proxyhub/core';
import type { RateLimitConfig, RateLimitName } from './config';

export interface RateLimiter {
  /** Counts one attempt; throws TOO_MANY_REQUESTS when the key is over its limit. */
  consume(name: RateLimitName, key: string): Promise<void>;
  /** Counts one attempt without ever refusing it (a ceiling that slows rather than refuses). */
  add(name: RateLimitName, key: string): Promise<void>;
  /** What the key has used in its current window, without counting anything. */
  peek(name: RateLimitName, key: string): Promise<{ consumed: number; msBeforeReset: number }>;
  reset(name: RateLimitName, key: string): Promise<void>;
  /** Gives back the point of an attempt that succeeded, so only failures count (redeem). */
  refund(name: RateLimitName, key: string): Promise<void>;
}

/** The one 429 every limit answers, with the seconds to wait (sent as Retry-After). */
export function tooManyAttempts(msBeforeNext: number): DomainError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  const wait = seconds >= 120 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} seconds`;
  return new DomainError('TOO_MANY_REQUESTS', `Too many attempts. Please try again in ${wait}.`, { retryAfterSeconds: seconds });
}

export function createRateLimiter(config: RateLimitConfig, redis?: Redis, keyPrefix = 'rl'): RateLimiter {
  const limiters = new Map<RateLimitName, RateLimiterAbstract>();
  for (const [name, rule] of Object.entries(config) as [RateLimitName, RateLimitConfig[RateLimitName]][]) {
    const opts = { keyPrefix: `${keyPrefix}:${name}`, points: rule.points, duration: rule.durationSeconds };
    // With Redis, an in-memory limiter takes over while Redis is unreachable: limits stay on and a
    // Redis outage never turns into failed sign-ins.
    limiters.set(
      name,
      redis
        ? new RateLimiterRedis({ ...opts, storeClient: redis, useRedisPackage: false, insuranceLimiter: new RateLimiterMemory(opts) })
        : new RateLimiterMemory(opts),
    );
  }
  return {
    async consume(name, key) {
      try {
        await limiters.get(name)!.consume(key);
      } catch (e) {
        if (e instanceof RateLimiterRes) throw tooManyAttempts(e.msBeforeNext);
        throw e;
      }
    },
    async add(name, key) {
      await limiters.get(name)!.penalty(key, 1);
    },
    async peek(name, key) {
      const res = await limiters.get(name)!.get(key);
      return res ? { consumed: res.consumedPoints, msBeforeReset: res.msBeforeNext } : { consumed: 0, msBeforeReset: 0 };
    },
    async reset(name, key) {
      await limiters.get(name)!.delete(key);
    },
    async refund(name, key) {
      await limiters.get(name)!.reward(key, 1);
    },
  };
}
