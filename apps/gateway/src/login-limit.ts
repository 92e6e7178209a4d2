/**
 * Failed proxy logins, limited in the gateway itself so that it is neither a password oracle nor an
 * amplifier that turns a guessing client into a flood of server calls. Two limits:
 * - per source address (IPv6: per /64, what one customer line holds): after `perAddress` failures
 *   every login from it is refused without asking the server, whatever the password;
 * - per proxy user id: while one collects `perUserId` failures (guessing from many addresses),
 *   addresses that have been failing (`suspectAfter` failures) are refused for it too. An address
 *   that has not been failing goes on as usual: others' guessing never locks the owner out.
 * Failures are counted in two fixed windows (this one and the last) and a limit applies to their
 * sum, so no trailing window ever holds more failures than the limit; logins waiting for the
 * server count against the address until answered, so a burst cannot overshoot either.
 */
import { addressKey } from '@proxyhub/core';

export interface LoginLimitOptions {
  windowMs: number;
  perAddress: number;
  perUserId: number;
  suspectAfter: number;
  /** Addresses and user ids remembered at most (the least recently failing are forgotten first). */
  maxKeys: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimitOptions = { windowMs: 60_000, perAddress: 50, perUserId: 100, suspectAfter: 3, maxKeys: 100_000 };

interface Counts {
  window: number;
  current: number;
  previous: number;
  pending: number;
}

/** Failure counts per key over the current and the previous window. */
class FailureCounts {
  private readonly entries = new Map<string, Counts>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys: number,
  ) {}

  private get(key: string, now: number): Counts | undefined {
    const e = this.entries.get(key);
    if (e) this.roll(e, Math.floor(now / this.windowMs));
    return e;
  }

  private roll(e: Counts, window: number): void {
    if (e.window === window) return;
    e.previous = window - e.window === 1 ? e.current : 0;
    e.current = 0;
    e.window = window;
  }

  private touch(key: string, now: number): Counts {
    const window = Math.floor(now / this.windowMs);
    let e = this.entries.get(key);
    if (e) {
      this.roll(e, window);
      this.entries.delete(key);
    } else {
      e = { window, current: 0, previous: 0, pending: 0 };
    }
    // Most recently touched last: forget stale keys from the front, and the oldest when full.
    for (const [k, old] of this.entries) {
      const stale = old.window < window - 1 && old.pending === 0;
      if (!stale && this.entries.size < this.maxKeys) break;
      this.entries.delete(k);
    }
    this.entries.set(key, e);
    return e;
  }

  failures(key: string, now: number): number {
    const e = this.get(key, now);
    return e ? e.current + e.previous : 0;
  }

  /** Failures plus logins still waiting for their answer. */
  failuresAndPending(key: string, now: number): number {
    const e = this.get(key, now);
    return e ? e.current + e.previous + e.pending : 0;
  }

  addFailure(key: string, now: number): number {
    const e = this.touch(key, now);
    e.current += 1;
    return e.current + e.previous;
  }

  addPending(key: string, now: number, n: 1 | -1): void {
    const e = n > 0 ? this.touch(key, now) : this.entries.get(key);
    if (e) e.pending = Math.max(0, e.pending + n);
  }
}

export interface LoginAttempt {
  /** The password was wrong. True when this failure made the address limited. */
  failed(): boolean;
  /** The server answered that the password is right. */
  succeeded(): void;
  /** No answer (server unreachable): counts for nothing. */
  abandoned(): void;
}

export class LoginLimiter {
  private readonly byAddress: FailureCounts;
  private readonly byUserId: FailureCounts;

  constructor(
    readonly opts: LoginLimitOptions = DEFAULT_LOGIN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.byAddress = new FailureCounts(opts.windowMs, opts.maxKeys);
    this.byUserId = new FailureCounts(opts.windowMs, opts.maxKeys);
  }

  /** A login may go ahead (then report how it ended), or null: refused without asking anyone. */
  attempt(address: string | undefined, proxyUserId: string): LoginAttempt | null {
    const addr = addressKey(address);
    const now = this.now();
    if (this.byAddress.failuresAndPending(addr, now) >= this.opts.perAddress) return null;
    const userUnderAttack = this.byUserId.failures(proxyUserId, now) >= this.opts.perUserId;
    if (userUnderAttack && this.byAddress.failures(addr, now) >= this.opts.suspectAfter) return null;
    this.byAddress.addPending(addr, now, 1);
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      this.byAddress.addPending(addr, this.now(), -1);
      return true;
    };
    return {
      failed: () => {
        if (!settle()) return false;
        const at = this.now();
        this.byUserId.addFailure(proxyUserId, at);
        return this.byAddress.addFailure(addr, at) === this.opts.perAddress;
      },
      succeeded: () => void settle(),
      abandoned: () => void settle(),
    };
  }
}
