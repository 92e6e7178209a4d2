/**
 * Proxy logins: the username's parts, the failed-login limits (login-limit.ts) and the server's
 * answer (through auth-cache.ts). Protects the traffic we sell: a tunnel starts only for a known
 * account with the right password, from an address on its owner's IP allow-list when they keep
 * one, or without credentials from an address its owner made password-less; credentials that stop
 * being valid, or an allow-list that no longer holds a connection's address, close connections.
 */
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { AllowlistMatcher, locationString, parseProxyUsername, randomSessionToken, type ProxyUsernameParts } from '@proxyhub/core';
import { lineTestOf, type LineProbe } from '@proxyhub/core/node';
import { addressKeyOf, AuthCache, credKeyOf, DEFAULT_AUTH_CACHE_OPTIONS, type AuthAnswer, type AuthCacheOptions } from './auth-cache';
import type { AccountAnswer, Backend, PortLine } from './backend';
import type { Logger } from './log';
import { DEFAULT_LOGIN_LIMITS, LoginLimiter, type LoginAttempt, type LoginLimitOptions } from './login-limit';
import type { Account, Meter } from './meter';
import { refusal, type Credentials, type Refusal } from './protocols/handshake';
import type { LogSession } from './connection-log/record';
import { LineRotations, ROTATED_REASON } from './line-rotations';
import { memoByString } from './string-memo';
import { accountRulesOf } from './target-policy';

/** Who a connection is relayed for. */
export interface Session {
  ok: true;
  account: Account;
  credKey: string;
  parts: ProxyUsernameParts;
  /** The server's signed test of the line (LINE_TEST_HEADER): relayed unbilled, for a short time. */
  lineTest?: boolean;
  /** A quality probe (a line test naming its pool): only that pool carries it, and it takes no lease. */
  probe?: LineProbe;
  /**
   * Its entry in the connection log's rows, once it has a row (row-writer.ts). Made undefined with
   * the session, so every session has one shape wherever it is read.
   */
  logSession?: LogSession | undefined;
}

const BAD_CREDENTIALS_MESSAGE = 'Invalid proxy username or password';
const MISSING_MESSAGE = 'Proxy authentication required: send your proxy username and password';

const normalAddress = memoByString((remote) => (ipaddr.isValid(remote) ? ipaddr.process(remote).toString() : null));

/** A source address as the allow-list sees it (an IPv4-mapped IPv6 address is IPv4); null if unknown. */
export function sourceAddress(remote: string | undefined): string | null {
  return remote ? normalAddress(remote) : null;
}

/** The username's parts, parsed once per username (the parts are shared: nothing may change them). */
const usernameParts = memoByString(parseProxyUsername);

/** One matcher per answer (answers are shared by the cache until the next refresh). */
const matchers = new WeakMap<readonly string[], AllowlistMatcher>();
function allowlistOf(answer: AccountAnswer & { ok: true }): AllowlistMatcher {
  let m = matchers.get(answer.allowlist);
  if (!m) matchers.set(answer.allowlist, (m = new AllowlistMatcher(answer.allowlist)));
  return m;
}

/**
 * Password-less connections to the main port name no location and no session: any location, a new
 * exit each time. To an entry port, its profile's line, with a token of the address and port (the
 * same on every gateway), so the session is sticky per address and port.
 */
function passwordlessParts(line: PortLine | undefined, address: string, port: number | undefined): ProxyUsernameParts {
  if (!line) return { proxyUserId: '', location: { country: '' }, durationMinutes: 1, token: randomSessionToken() };
  const token = createHash('sha256').update(`${address}\n${port}`).digest('hex').slice(0, 8).toUpperCase();
  return { proxyUserId: line.proxyUserId, location: line.location, durationMinutes: line.durationMinutes, token };
}
/** The server accepts 1 to 256 characters: anything else is refused without asking it. */
const MAX_PASSWORD_LENGTH = 256;

export class Authenticator {
  readonly cache: AuthCache;
  readonly limiter: LoginLimiter;
  /** The lines' rotation counters from the login answers ("A new IP now"). */
  readonly rotations = new LineRotations();
  private readonly refreshTimer: NodeJS.Timeout;
  /** Logins waiting for the server, by address and credentials (see login). */
  private readonly inFlight = new Map<string, Promise<Session | Refusal>>();
  private readonly lineTestKey: string;
  private readonly notCarried: (parts: ProxyUsernameParts) => string | null;

  constructor(
    backend: Backend,
    private readonly meter: Meter,
    private readonly logger: Logger,
    opts: {
      auth?: Partial<AuthCacheOptions> | undefined;
      loginLimits?: Partial<LoginLimitOptions> | undefined;
      /** The fleet's internal key, which signs the server's line tests (none: no test is accepted). */
      lineTestKey?: string | undefined;
      /** What a line asks for (ZIP, ASN, hard sticky) that no upstream for its country carries, or null (upstream-pool.ts). */
      notCarried?: ((parts: ProxyUsernameParts) => string | null) | undefined;
    },
  ) {
    this.lineTestKey = opts.lineTestKey ?? '';
    this.notCarried = opts.notCarried ?? (() => null);
    const authOpts = { ...DEFAULT_AUTH_CACHE_OPTIONS, ...opts.auth };
    this.cache = new AuthCache(
      backend,
      authOpts,
      logger,
      (credKey, answer) => this.revoke(credKey, answer.ok ? '' : answer.message),
      (credKey, answer) => this.recheck(credKey, answer),
      {
        gatewayId: meter.opts.gatewayId,
        bytes: meter.opts.initialLeaseBytes,
        adopt: (account, lease) => void meter.account(account.proxyAccountId, account.usageType).adopt(lease),
      },
    );
    this.limiter = new LoginLimiter({ ...DEFAULT_LOGIN_LIMITS, ...opts.loginLimits });
    // Credentials of open connections are re-checked before their cache entry expires.
    this.refreshTimer = setInterval(() => this.cache.refreshInUse(this.credKeysInUse()), Math.max(250, authOpts.ttlMs / 2));
    this.refreshTimer.unref();
  }

  /**
   * `credentials` null: the client brought none (SOCKS5 method 0, HTTP without Proxy-Authorization).
   * Identical logins from one address while the first waits for the server share it: one login
   * attempt against the address's limit (a burst of one client's connections is not a burst of
   * guesses, and the cache makes one server call for them anyway).
   */
  login(credentials: Credentials | null, remote: string | undefined, entryPort?: number): Session | Refusal | Promise<Session | Refusal> {
    if (!credentials) return this.passwordless(remote, entryPort);
    const key = () => `${remote}\0${credentials.username}\0${credentials.password}\0${credentials.lineTest ?? ''}`;
    const waiting = this.inFlight.size ? this.inFlight.get(key()) : undefined;
    if (waiting) return waiting;
    // Answered from the cache in this turn (most logins): nothing waits, nothing to share.
    const r = this.loginOnce(credentials, remote);
    if (!(r instanceof Promise)) return r;
    const k = key();
    this.inFlight.set(k, r);
    void r.finally(() => this.inFlight.delete(k));
    return r;
  }

  /** The login; a promise only when the server must be asked (a cache miss). */
  private loginOnce(credentials: Credentials, remote: string | undefined): Session | Refusal | Promise<Session | Refusal> {
    const { username, password } = credentials;
    if (!username) return refusal('missing', 'Proxy authentication required');
    const parsed = usernameParts(username);
    if (!parsed.ok) return refusal('bad_username', `Malformed proxy username: ${parsed.reason}`);
    const parts = parsed.value;
    const signed = credentials.lineTest === undefined ? undefined : lineTestOf(this.lineTestKey, username, credentials.lineTest);
    if (signed === null) return refusal('forbidden', 'Line test signature not valid: the server and this gateway must share INTERNAL_API_KEY');
    const lineTest = signed !== undefined;
    // Logins with the same password for the same user id share a place while they wait.
    const attempt = this.limiter.attempt(remote, parts.proxyUserId, credKeyOf(parts.proxyUserId, password ?? ''));
    if (!attempt) return refusal('limited', 'Too many failed proxy logins: try again in a minute');
    const failed = (): Refusal => {
      if (attempt.failed()) this.logger.warn({ remote }, 'too many failed proxy logins: address limited');
      return refusal('bad_credentials', BAD_CREDENTIALS_MESSAGE);
    };
    if (!password || password.length > MAX_PASSWORD_LENGTH) return failed();
    const answer = this.cache.check(parts.proxyUserId, password, parts.location);
    const admit = (a: AuthAnswer) => this.admit(a, attempt, failed, parts, password, remote, lineTest, signed?.probe ?? null);
    if (!(answer instanceof Promise)) return admit(answer);
    return answer.then(admit, (err: unknown) => {
      attempt.abandoned();
      this.logger.warn({ err }, 'authorization call failed');
      return refusal('unavailable', 'Proxy authentication is temporarily unavailable, try again');
    });
  }

  /** The server's (or the cache's) answer to a login, applied. */
  private admit(
    answer: AuthAnswer,
    attempt: LoginAttempt,
    failed: () => Refusal,
    parts: ProxyUsernameParts,
    password: string,
    remote: string | undefined,
    lineTest: boolean,
    probe: LineProbe | null,
  ): Session | Refusal {
    if (!answer.account.ok && answer.account.reason === 'bad_credentials') return failed();
    attempt.succeeded();
    if (!answer.account.ok) return refusal(answer.account.reason === 'expired' ? 'expired' : 'disabled', answer.account.message);
    if (!answer.locationKnown) return refusal('bad_location', `Location not offered: ${locationString(parts.location)}`);
    const notCarried = this.notCarried(parts);
    if (notCarried) return refusal('bad_location', `Targeting not offered: ${notCarried}`);
    // A line test comes from the server, not from the customer: their allow-list does not name it.
    if (!lineTest && !allowlistOf(answer.account).admits(sourceAddress(remote) ?? undefined)) {
      return refusal('address_not_allowed', `This proxy account's IP allow-list does not include ${sourceAddress(remote) ?? 'this address'}`);
    }
    const account = this.meter.account(answer.account.proxyAccountId, answer.account.usageType);
    account.maxConnections = answer.account.maxConnections;
    account.targetPolicyExempt = answer.account.targetPolicyExempt;
    account.targetRules = accountRulesOf(answer.account.targetRules);
    // The server says yes again (an account re-enabled, a user unsuspended): a lease refusal it gave
    // earlier no longer stands. If it still does, the next lease request says so at once.
    account.disabled = false;
    const session: Session = { ok: true, account, credKey: credKeyOf(parts.proxyUserId, password), parts, logSession: undefined };
    if (lineTest) session.lineTest = true;
    if (probe) session.probe = probe;
    return session;
  }

  /**
   * No credentials: the main account of the user who made this source address password-less, if
   * any; to an entry port, the account, location and session of that port's profile (none: refused
   * as without credentials). Not counted as a failed login: HTTP clients send a first request
   * without credentials and repeat it with them after the 407. The cache keeps one server call per
   * address (and entry port) per few seconds.
   */
  private async passwordless(remote: string | undefined, entryPort: number | undefined): Promise<Session | Refusal> {
    const address = sourceAddress(remote);
    if (!address) return refusal('missing', MISSING_MESSAGE);
    let answer: AccountAnswer;
    try {
      answer = await this.cache.checkAddress(address, entryPort);
    } catch (err) {
      this.logger.warn({ err }, 'password-less lookup failed');
      return refusal('unavailable', 'Proxy authentication is temporarily unavailable, try again');
    }
    if (!answer.ok) {
      if (answer.reason === 'disabled') return refusal('disabled', answer.message);
      if (answer.reason === 'expired') return refusal('expired', answer.message);
      return refusal('missing', `${MISSING_MESSAGE} (${answer.message.replace(/^No credentials, and /, '')})`);
    }
    const line = answer.portProfile;
    if (line && !line.locationKnown) return refusal('bad_location', `Location not offered: ${locationString(line.location)}`);
    const account = this.meter.account(answer.proxyAccountId, answer.usageType);
    account.maxConnections = answer.maxConnections;
    account.targetPolicyExempt = answer.targetPolicyExempt;
    account.targetRules = accountRulesOf(answer.targetRules);
    account.disabled = false;
    return { ok: true, account, credKey: addressKeyOf(address, entryPort), parts: passwordlessParts(line, address, entryPort), logSession: undefined };
  }

  stop(): void {
    clearInterval(this.refreshTimer);
  }

  private credKeysInUse(): Set<string> {
    const keys = new Set<string>();
    for (const a of this.meter.accounts.values()) for (const c of a.conns) keys.add(c.credKey);
    return keys;
  }

  /**
   * A refresh said yes: connections whose address the owner's allow-list no longer holds close, and
   * so do password-less ones whose address now belongs to another account (or none of its owner's);
   * the account's target rules are the answer's from now on.
   */
  private recheck(credKey: string, answer: AccountAnswer & { ok: true }): void {
    this.closeRotated(answer);
    const list = allowlistOf(answer);
    // A credential names one account; an address's password-less owner may have changed.
    const passwordless = credKey.startsWith('@');
    const own = this.meter.accounts.get(answer.proxyAccountId);
    // Changed target rules apply to the account's next target (a kept-alive connection's next request too).
    if (own) own.targetRules = accountRulesOf(answer.targetRules);
    const accounts = passwordless ? [...this.meter.accounts.values()] : own ? [own] : [];
    let closed = 0;
    for (const a of accounts) {
      for (const c of [...a.conns]) {
        if (c.credKey !== credKey || c.lineTest) continue;
        if (a.id === answer.proxyAccountId && list.admits(sourceAddress(c.remote) ?? undefined)) continue;
        c.close('address no longer allowed');
        closed += 1;
      }
    }
    if (closed)
      this.logger.info(
        { closed, remote: passwordless ? credKey.slice(1).split('#')[0] : undefined },
        'IP allow-list changed: connections from addresses it no longer holds closed',
      );
  }

  /** A line whose rotation counter moved gets a new session: its open connections (made with the old one) close. */
  private closeRotated(answer: AccountAnswer & { ok: true }): void {
    const moved = this.rotations.learn(answer.proxyAccountId, answer.rotations);
    const account = moved.length ? this.meter.accounts.get(answer.proxyAccountId) : undefined;
    if (!account) return;
    let closed = 0;
    for (const c of [...account.conns]) {
      if (c.lineToken === undefined || !moved.includes(c.lineToken)) continue;
      c.close(ROTATED_REASON);
      closed += 1;
    }
    if (closed) this.logger.info({ closed, proxyAccountId: account.id }, 'line rotated: its connections closed');
  }

  private revoke(credKey: string, why: string): void {
    for (const a of this.meter.accounts.values()) {
      for (const c of [...a.conns]) if (c.credKey === credKey) c.close(why);
    }
    this.logger.info({ why }, 'credentials revoked: connections closed');
  }
}
