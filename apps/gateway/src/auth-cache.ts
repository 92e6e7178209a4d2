/**
 * Proxy credentials are checked by the server and remembered here briefly, good answers and bad
 * ones alike, so connection setup rarely waits for the server and a client repeating a wrong
 * password does not repeat the call (new guesses are bounded by login-limit.ts). Entries in use are
 * refreshed before they expire; when a refresh says no (password changed, account disabled), the
 * connections that used them are closed.
 */
import { locationString, type ProxyLocation } from '@proxyhub/core';
import type { AccountAnswer, Backend } from './backend';
import type { Logger } from './log';

export interface AuthCacheOptions {
  /** How long a good answer is trusted; in-use entries are refreshed after half of it. */
  ttlMs: number;
  /** How long a refusal is remembered. */
  negativeTtlMs: number;
  maxEntries: number;
}

export const DEFAULT_AUTH_CACHE_OPTIONS: AuthCacheOptions = { ttlMs: 5000, negativeTtlMs: 2000, maxEntries: 100_000 };
const LOCATION_TTL_MS = 10 * 60_000;

interface Entry {
  answer: AccountAnswer;
  at: number;
  refreshing: boolean;
}

export interface AuthAnswer {
  account: AccountAnswer;
  locationKnown: boolean;
}

export function credKeyOf(proxyUserId: string, password: string): string {
  return `${proxyUserId}\0${password}`;
}

export class AuthCache {
  private readonly creds = new Map<string, Entry>();
  private readonly locations = new Map<string, { known: boolean; at: number }>();
  private readonly inflight = new Map<string, Promise<AuthAnswer>>();

  constructor(
    private readonly backend: Backend,
    private readonly opts: AuthCacheOptions,
    private readonly logger: Logger,
    /** Called when a refresh turns a good answer bad. */
    private readonly onRevoked: (credKey: string, answer: AccountAnswer) => void,
  ) {}

  /** Cached when fresh; otherwise one server call shared by concurrent callers. */
  check(proxyUserId: string, password: string, location: ProxyLocation): AuthAnswer | Promise<AuthAnswer> {
    const key = credKeyOf(proxyUserId, password);
    const loc = locationString(location);
    const now = Date.now();
    const e = this.creds.get(key);
    const l = this.locations.get(loc);
    if (e && l && now - l.at < LOCATION_TTL_MS && now - e.at < (e.answer.ok ? this.opts.ttlMs : this.opts.negativeTtlMs)) {
      if (e.answer.ok && now - e.at > this.opts.ttlMs / 2) this.refresh(key);
      return { account: e.answer, locationKnown: l.known };
    }
    return this.fetch(key, proxyUserId, password, location, loc);
  }

  private fetch(key: string, proxyUserId: string, password: string, location: ProxyLocation, loc: string): Promise<AuthAnswer> {
    const flightKey = `${key}\0${loc}`;
    let p = this.inflight.get(flightKey);
    if (!p) {
      p = (async () => {
        const r = await this.backend.authorize({ proxyUserId, password, location });
        const now = Date.now();
        this.store(key, r.account, now);
        const known = r.locationKnown ?? false;
        this.locations.set(loc, { known, at: now });
        return { account: r.account, locationKnown: known };
      })().finally(() => this.inflight.delete(flightKey));
      this.inflight.set(flightKey, p);
    }
    return p;
  }

  private store(key: string, answer: AccountAnswer, at: number): void {
    const prev = this.creds.get(key);
    this.creds.delete(key);
    if (this.creds.size >= this.opts.maxEntries) {
      const oldest = this.creds.keys().next();
      if (!oldest.done) this.creds.delete(oldest.value);
    }
    this.creds.set(key, { answer, at, refreshing: false });
    if (prev?.answer.ok && !answer.ok) this.onRevoked(key, answer);
  }

  /** Re-asks the server in the background (entries in use, before they expire). */
  refresh(key: string): void {
    const e = this.creds.get(key);
    if (e?.refreshing) return;
    if (e) e.refreshing = true;
    const i = key.indexOf('\0');
    const proxyUserId = key.slice(0, i);
    const password = key.slice(i + 1);
    this.backend.authorize({ proxyUserId, password }).then(
      (r) => this.store(key, r.account, Date.now()),
      (err: unknown) => {
        if (e) e.refreshing = false;
        this.logger.warn({ err }, 'credential refresh failed');
      },
    );
  }

  /** Refreshes the entries of open connections that are past half their lifetime. */
  refreshInUse(keys: Iterable<string>): void {
    const now = Date.now();
    for (const key of keys) {
      const e = this.creds.get(key);
      if (!e || now - e.at > this.opts.ttlMs / 2) this.refresh(key);
    }
  }
}
