/**
 * Rate limits as procedure middleware: the one layer where limits are applied. A limit runs after
 * input validation, so malformed calls cost nothing, and before the service, which knows nothing
 * of limits.
 *
 * Sign-in (user and admin) is limited so that an attacker's failures never lock the owner out:
 * - per (account, address): more than `AccountIp.points` wrong passwords in a row from one address
 *   are refused with 429 until the window passes; a success clears the count;
 * - per address across accounts: slow brute force and password spraying from one address;
 * - per account across addresses, a ceiling that slows guessing instead of refusing: past it, every
 *   attempt waits `delayMs` before its password is checked, and an address that has already failed
 *   on this account is refused until its own count expires, so a botnet gets one guess per address.
 *   A correct password from an address that has not been failing still gets in.
 * Unknown accounts are counted exactly like real ones: a limit reveals nothing about existence.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { addressKey, DomainError } from '@proxyhub/core';
import type { RateLimitName } from './config';
import type { Context } from './context';
import { tooManyAttempts } from './rate-limit';
import { middleware } from './trpc';

/**
 * The caller's address as every per-address limit counts it: IPv6 per /64 (one customer line), so
 * a /64 is one address, not 2^64.
 */
export const clientKey = (ctx: Context): string => addressKey(ctx.req.ip);

/**
 * Counts every call against each `[limit, key]` the function names (429 once one is exhausted).
 * With `failuresOnly`, a call that succeeds gives its points back: only failed guesses count.
 */
export function limited<I>(keys: (ctx: Context, input: I) => [RateLimitName, string][], opts: { failuresOnly?: boolean } = {}) {
  return middleware(async ({ ctx, input, next }) => {
    const limiter = ctx.deps.rateLimiter;
    const rules = keys(ctx, input as I);
    for (const [name, key] of rules) await limiter.consume(name, key);
    const result = await next();
    if (opts.failuresOnly && result.ok) await Promise.all(rules.map(([name, key]) => limiter.refund(name, key)));
    return result;
  });
}

/** A wrong password (or unknown account) is the only outcome that counts as a failed sign-in. */
const isWrongPassword = (error: { cause?: unknown }) => error.cause instanceof DomainError && error.cause.code === 'UNAUTHORIZED';

/** The sign-in limits of one form (`login` or `adminLogin`), keyed on the account the input names. */
export function signInLimited<I>(form: 'login' | 'adminLogin', account: (input: I) => string) {
  const names = { accountIp: `${form}AccountIp`, ip: `${form}Ip`, account: `${form}Account` } as const;
  return middleware(async ({ ctx, input, next }) => {
    const limiter = ctx.deps.rateLimiter;
    const ceiling = ctx.deps.config.rateLimits[names.account];
    const acct = account(input as I)
      .trim()
      .toLowerCase();
    const ip = clientKey(ctx);
    // An address never contains a space, so this key cannot be shared by two (account, address) pairs.
    const pair = `${ip} ${acct}`;

    const overCeiling = (await limiter.peek(names.account, acct)).consumed >= ceiling.points;
    if (overCeiling) {
      const mine = await limiter.peek(names.accountIp, pair);
      if (mine.consumed > 0) throw tooManyAttempts(mine.msBeforeReset);
    }
    // Counted before the password is checked, so parallel guesses cannot slip past a limit.
    await limiter.consume(names.ip, ip);
    try {
      await limiter.consume(names.accountIp, pair);
    } catch (e) {
      await limiter.refund(names.ip, ip);
      throw e;
    }
    await limiter.add(names.account, acct);
    if (overCeiling && ceiling.delayMs) await sleep(ceiling.delayMs);

    const result = await next();
    if (result.ok || !isWrongPassword(result.error)) {
      await Promise.all([limiter.reset(names.accountIp, pair), limiter.refund(names.ip, ip), limiter.refund(names.account, acct)]);
    }
    return result;
  });
}
