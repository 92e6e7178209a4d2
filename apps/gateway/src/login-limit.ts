/**
 * Failed proxy logins, limited in the gateway itself so that it is neither a password oracle nor an
 * amplifier that turns a guessing client into a flood of server calls. Two limits:
 * - per source address (IPv6: per /64, what one customer line holds): after `perAddress` failures
 *   every login from it is refused without asking the server, whatever the password;
 * - per proxy user id: while one collects `perUserId` failures (guessing from many addresses),
 *   addresses that have been failing (`suspectAfter` failures) are refused for it too. An address
 *   that has not been failing goes on as usual: others' guessing never locks the owner out.
 * Failures are counted in two fixed windows (this one and the last) and a limit applies to their
 * sum, so no trailing window ever holds more failures than the limit. Only failures count: a login
 * waiting for the server is not one. So that a burst of guesses cannot overshoot while it waits,
 * each distinct credential (user id and password) in flight from an address holds a place until
 * answered; logins with the same credential share that place (a scraper opening 200 sessions at
 * once, every client reconnecting after a restart: one password, one server call, one place).
 */
import { addressKey as parsedAddressKey } from '@proxyhub/core';
import { memoByString } from './string-memo';

/** Per-address keys, parsed once per address. */
const keyOf = memoByString(parsedAddressKey);
const addressKey = (address: string | undefined): string => (address ? keyOf(address) : parsedAddressKey(address));

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
      e = { window, current: 0, previous: 0 };
    }
    // Most recently touched last: forget stale keys from the front, and the oldest when full.
    for (const [k, old] of this.entries) {
      const stale = old.window < window - 1;
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

  addFailure(key: string, now: number): number {
    const e = this.touch(key, now);
    e.current += 1;
    return e.current + e.previous;
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
  /** Per address, the distinct credentials waiting for the server and how many logins share each. */
  private readonly pending = new Map<string, Map<string, number>>();
  private unique = 0;

  constructor(
    readonly opts: LoginLimitOptions = DEFAULT_LOGIN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.byAddress = new FailureCounts(opts.windowMs, opts.maxKeys);
    this.byUserId = new FailureCounts(opts.windowMs, opts.maxKeys);
  }

  /**
   * A login may go ahead (then report how it ended), or null: refused without asking anyone.
   * `credential` identifies what is being tried (user id and password); logins with the same one
   * share a place while they wait. Without it, each login is a credential of its own.
   */
  attempt(address: string | undefined, proxyUserId: string, credential = `\0${++this.unique}`): LoginAttempt | null {
    const addr = addressKey(address);
    const now = this.now();
    const failures = this.byAddress.failures(addr, now);
    const waiting = this.pending.get(addr);
    const sharesPlace = waiting?.has(credential) ?? false;
    if (failures + (sharesPlace ? 0 : (waiting?.size ?? 0)) >= this.opts.perAddress) return null;
    const userUnderAttack = this.byUserId.failures(proxyUserId, now) >= this.opts.perUserId;
    if (userUnderAttack && failures >= this.opts.suspectAfter) return null;
    this.hold(addr, credential);
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      this.release(addr, credential);
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

  private hold(addr: string, credential: string): void {
    let waiting = this.pending.get(addr);
    if (!waiting) this.pending.set(addr, (waiting = new Map()));
    waiting.set(credential, (waiting.get(credential) ?? 0) + 1);
  }

  private release(addr: string, credential: string): void {
    const waiting = this.pending.get(addr);
    const n = waiting?.get(credential) ?? 0;
    if (!waiting || n === 0) return;
    if (n > 1) waiting.set(credential, n - 1);
    else waiting.delete(credential);
    if (waiting.size === 0) this.pending.delete(addr);
  }
}
