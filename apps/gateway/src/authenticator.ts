/**
 * Proxy logins: the username's parts, the failed-login limits (login-limit.ts) and the server's
 * answer (through auth-cache.ts). Protects the traffic we sell: a tunnel starts only for a known
 * account with the right password; credentials that stop being valid close their connections.
 */
import { locationString, parseProxyUsername, type ProxyUsernameParts } from '@proxyhub/core';
import { AuthCache, credKeyOf, DEFAULT_AUTH_CACHE_OPTIONS, type AuthCacheOptions } from './auth-cache';
import type { Backend } from './backend';
import type { Logger } from './log';
import { DEFAULT_LOGIN_LIMITS, LoginLimiter, type LoginLimitOptions } from './login-limit';
import type { Account, Meter } from './meter';
import { refusal, type Credentials, type Refusal } from './protocols/handshake';

/** Who a connection is relayed for. */
export interface Session {
  ok: true;
  account: Account;
  credKey: string;
  parts: ProxyUsernameParts;
}

const BAD_CREDENTIALS_MESSAGE = 'Invalid proxy username or password';
/** The server accepts 1 to 256 characters: anything else is refused without asking it. */
const MAX_PASSWORD_LENGTH = 256;

export class Authenticator {
  readonly cache: AuthCache;
  readonly limiter: LoginLimiter;
  private readonly refreshTimer: NodeJS.Timeout;

  constructor(
    backend: Backend,
    private readonly meter: Meter,
    private readonly logger: Logger,
    opts: { auth?: Partial<AuthCacheOptions> | undefined; loginLimits?: Partial<LoginLimitOptions> | undefined },
  ) {
    const authOpts = { ...DEFAULT_AUTH_CACHE_OPTIONS, ...opts.auth };
    this.cache = new AuthCache(backend, authOpts, logger, (credKey, answer) => this.revoke(credKey, answer.ok ? '' : answer.message));
    this.limiter = new LoginLimiter({ ...DEFAULT_LOGIN_LIMITS, ...opts.loginLimits });
    // Credentials of open connections are re-checked before their cache entry expires.
    this.refreshTimer = setInterval(() => this.cache.refreshInUse(this.credKeysInUse()), Math.max(250, authOpts.ttlMs / 2));
    this.refreshTimer.unref();
  }

  async login({ username, password }: Credentials, remote: string | undefined): Promise<Session | Refusal> {
    if (!username) return refusal('missing', 'Proxy authentication required');
    const parsed = parseProxyUsername(username);
    if (!parsed.ok) return refusal('bad_username', `Malformed proxy username: ${parsed.reason}`);
    const parts = parsed.value;
    const attempt = this.limiter.attempt(remote, parts.proxyUserId);
    if (!attempt) return refusal('limited', 'Too many failed proxy logins: try again in a minute');
    const failed = (): Refusal => {
      if (attempt.failed()) this.logger.warn({ remote }, 'too many failed proxy logins: address limited');
      return refusal('bad_credentials', BAD_CREDENTIALS_MESSAGE);
    };
    if (!password || password.length > MAX_PASSWORD_LENGTH) return failed();
    let answer;
    try {
      answer = await this.cache.check(parts.proxyUserId, password, parts.location);
    } catch (err) {
      attempt.abandoned();
      this.logger.warn({ err }, 'authorization call failed');
      return refusal('unavailable', 'Proxy authentication is temporarily unavailable, try again');
    }
    if (!answer.account.ok && answer.account.reason === 'bad_credentials') return failed();
    attempt.succeeded();
    if (!answer.account.ok) return refusal('disabled', answer.account.message);
    if (!answer.locationKnown) return refusal('bad_location', `Unknown location: ${locationString(parts.location)}`);
    const account = this.meter.account(answer.account.proxyAccountId, answer.account.usageType);
    // The server says yes again (an account re-enabled, a user unsuspended): a lease refusal it gave
    // earlier no longer stands. If it still does, the next lease request says so at once.
    account.disabled = false;
    return { ok: true, account, credKey: credKeyOf(parts.proxyUserId, password), parts };
  }

  stop(): void {
    clearInterval(this.refreshTimer);
  }

  private credKeysInUse(): Set<string> {
    const keys = new Set<string>();
    for (const a of this.meter.accounts.values()) for (const c of a.conns) keys.add(c.credKey);
    return keys;
  }

  private revoke(credKey: string, why: string): void {
    for (const a of this.meter.accounts.values()) {
      for (const c of [...a.conns]) if (c.credKey === credKey) c.close(why);
    }
    this.logger.info({ why }, 'credentials revoked: connections closed');
  }
}
