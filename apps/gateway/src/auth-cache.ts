/**
 * Proxy credentials are checked by the server and remembered here briefly, good answers and bad
 * ones alike, so connection setup rarely waits for the server and a client repeating a wrong
 * password does not repeat the call (new guesses are bounded by login-limit.ts). Entries in use are
 * refreshed before they expire; when a refresh says no (password changed, account disabled), the
 * connections that used them are closed.
 */
import { LRUCache } from 'lru-cache';
import { locationString, type ProxyLocation } from '@proxyhub/core';
import type { AccountAnswer, Backend, LeaseAnswer } from './backend';
import type { Logger } from './log';

export interface AuthCacheOptions {
  /** How long a good answer is trusted; in-use entries are refreshed after half of it. */
  ttlMs: number;
  /** How long a refusal is remembered. */
  negativeTtlMs: number;
  maxEntries: number;
}

export const DEFAULT_AUTH_CACHE_OPTIONS: AuthCacheOptions = { ttlMs: 5000, negativeTtlMs: 2000, maxEntries: 100_000 };
/** Whether a location is offered (the admin's catalogue, the upstreams serving it): a change reaches running gateways within this. */
const LOCATION_TTL_MS = 60_000;
/** Locations are named by clients (in the username), known or not: bounded too. */
const MAX_LOCATIONS = 10_000;

interface Entry {
  answer: AccountAnswer;
  refreshing: boolean;
}

export interface AuthAnswer {
  account: AccountAnswer;
  locationKnown: boolean;
}

/**
 * A login that misses the cache asks for the account's first lease with the check, so a new
 * account's first connection waits for one server call, not two (a thousand new accounts at once
 * are two batches less).
 */
export interface FirstLease {
  gatewayId: string;
  bytes: number;
  /** Takes the lease that came with a good answer, before the login that asked for it goes on. */
  adopt(account: AccountAnswer & { ok: true }, lease: LeaseAnswer): void;
}

export function credKeyOf(proxyUserId: string, password: string): string {
  return `${proxyUserId}\0${password}`;
}

/** The key of a connection that brought no credentials (password-less access): its source address. */
const ADDRESS_KEY_PREFIX = '@';

/** Between an address and an entry port in its key (no address holds it). */
const PORT_SEPARATOR = '#';

/** `port`: the entry port it came to (its own answer: another account, location, session); absent for the main port. */
export function addressKeyOf(address: string, port?: number): string {
  // Proxy user ids are [a-z0-9]: no credential key starts with this.
  return port === undefined ? `${ADDRESS_KEY_PREFIX}${address}` : `${ADDRESS_KEY_PREFIX}${address}${PORT_SEPARATOR}${port}`;
}

/** A login answer's target rules as one string, to tell a change. */
const rulesKey = (a: AccountAnswer & { ok: true }) => (a.targetRules ? `${a.targetRules.mode} ${a.targetRules.patterns.join(',')}` : '');

/** Whether a good answer differs from the last one in what open connections depend on (the allow-list, the lines' rotations, the target rules). */
function changed(before: AccountAnswer, after: AccountAnswer & { ok: true }): boolean {
  return (
    !before.ok ||
    before.proxyAccountId !== after.proxyAccountId ||
    before.allowlist.join(',') !== after.allowlist.join(',') ||
    rulesKey(before) !== rulesKey(after) ||
    before.rotations.length !== after.rotations.length ||
    before.rotations.some((r, i) => r.count !== after.rotations[i]!.count || r.token !== after.rotations[i]!.token)
  );
}

export class AuthCache {
  private readonly creds: LRUCache<string, Entry>;
  private readonly locations = new LRUCache<string, boolean>({ max: MAX_LOCATIONS, ttl: LOCATION_TTL_MS });
  private readonly inflight = new Map<string, Promise<AuthAnswer>>();
  constructor(
    private readonly backend: Backend,
    private readonly opts: AuthCacheOptions,
    private readonly logger: Logger,
    /** Called when a refresh of credentials that were good says no. */
    private readonly onRevoked: (credKey: string, answer: AccountAnswer) => void,
    /** Called when a refresh says yes again, with what may have changed (the allow-list, rotations). */
    private readonly onRenewed: (credKey: string, answer: AccountAnswer & { ok: true }) => void = () => undefined,
    /** Asked for with each login that misses the cache (see FirstLease); refreshes never ask for one. */
    private readonly firstLease: FirstLease | null = null,
  ) {
    // Each entry gets its own time to live (good and bad answers differ); expired ones are never served.
    this.creds = new LRUCache<string, Entry>({ max: opts.maxEntries, ttl: opts.ttlMs });
  }

  /** Cached when fresh; otherwise one server call shared by concurrent callers. */
  check(proxyUserId: string, password: string, location: ProxyLocation): AuthAnswer | Promise<AuthAnswer> {
    const key = credKeyOf(proxyUserId, password);
    const loc = locationString(location);
    const e = this.creds.get(key);
    const known = this.locations.get(loc);
    if (e && known !== undefined) {
      if (e.answer.ok && this.halfExpired(key)) this.refresh(key);
      return { account: e.answer, locationKnown: known };
    }
    return this.fetch(key, proxyUserId, password, location, loc);
  }

  /** Whose password-less address this is, if anyone's: cached like credentials, one call for concurrent checks. */
  checkAddress(address: string, port?: number): AccountAnswer | Promise<AccountAnswer> {
    const key = addressKeyOf(address, port);
    const e = this.creds.get(key);
    if (e) {
      if (e.answer.ok && this.halfExpired(key)) this.refresh(key);
      return e.answer;
    }
    let p = this.inflight.get(key);
    if (!p) {
      p = (async () => {
        const answer = await this.ask(key);
        this.renew(key, answer);
        return { account: answer, locationKnown: true };
      })().finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p.then((r) => r.account);
  }

  /** The server's answer for a key, whichever kind it is. */
  private async ask(key: string): Promise<AccountAnswer> {
    if (key.startsWith(ADDRESS_KEY_PREFIX)) {
      const [address, port] = key.slice(ADDRESS_KEY_PREFIX.length).split(PORT_SEPARATOR) as [string, string | undefined];
      return (await this.backend.authorizeAddress({ address, ...(port !== undefined && { port: Number(port) }) })).account;
    }
    const i = key.indexOf('\0');
    return (await this.backend.authorize({ proxyUserId: key.slice(0, i), password: key.slice(i + 1) })).account;
  }

  private halfExpired(key: string): boolean {
    return this.creds.getRemainingTTL(key) < this.opts.ttlMs / 2;
  }

  private fetch(key: string, proxyUserId: string, password: string, location: ProxyLocation, loc: string): Promise<AuthAnswer> {
    const flightKey = `${key}\0${loc}`;
    let p = this.inflight.get(flightKey);
    if (!p) {
      p = (async () => {
        const first = this.firstLease;
        const r = await this.backend.authorize({
          proxyUserId,
          password,
          location,
          ...(first && { lease: { gatewayId: first.gatewayId, bytes: first.bytes } }),
        });
        if (first && r.lease && r.account.ok) first.adopt(r.account, r.lease);
        this.renew(key, r.account);
        const known = r.locationKnown ?? false;
        this.locations.set(loc, known);
        return { account: r.account, locationKnown: known };
      })().finally(() => this.inflight.delete(flightKey));
      this.inflight.set(flightKey, p);
    }
    return p;
  }

  /**
   * Stores a fresh answer; a good one that differs from the last known (or follows none: the entry
   * may have expired while connections used it) is passed on, so open connections are judged by it.
   */
  private renew(key: string, answer: AccountAnswer): void {
    const before = this.creds.peek(key)?.answer;
    this.store(key, answer);
    if (answer.ok && (!before || changed(before, answer))) this.onRenewed(key, answer);
  }

  private store(key: string, answer: AccountAnswer): void {
    this.creds.set(key, { answer, refreshing: false }, { ttl: answer.ok ? this.opts.ttlMs : this.opts.negativeTtlMs });
  }

  /**
   * Re-asks the server in the background. Only credentials that were good are refreshed (served
   * from the cache, or in use by open connections), so a refusal now revokes them.
   */
  refresh(key: string): void {
    const e = this.creds.peek(key);
    if (e?.refreshing) return;
    if (e) e.refreshing = true;
    this.ask(key).then(
      (answer) => {
        if (!answer.ok) {
          this.store(key, answer);
          this.onRevoked(key, answer);
        } else {
          this.renew(key, answer);
        }
      },
      (err: unknown) => {
        if (e) e.refreshing = false;
        this.logger.warn({ err }, 'credential refresh failed');
      },
    );
  }

  /** Refreshes the entries of open connections that are past half their lifetime (or gone). */
  refreshInUse(keys: Iterable<string>): void {
    for (const key of keys) if (this.halfExpired(key)) this.refresh(key);
  }
}
