import type { EntryPortRange, UsageType } from '@proxyhub/core';

/** Everything the API needs from the environment, already validated by the app that hosts it. */
export interface ApiConfig {
  production: boolean;
  /** Origin the browser uses; links in mail, OAuth and payment callbacks are built from it only. */
  publicUrl: string;
  dataDir: string;
  appSecret: string;
  internalApiKey: string;
  /** STATEMENT_SIGNING_KEY (Ed25519, PEM or base64 PKCS#8); absent (tests): a key made for this process. */
  statementSigningKey?: string;
  /**
   * `entryPorts` (GATEWAY_ENTRY_PORTS, the gateway's setting, read here too): the ports an
   * allow-list entry's port profiles may name; absent, the default range; null: none (off).
   */
  gateway: { publicHost: string | null; publicPort: number; entryPorts?: EntryPortRange | null };
  google: null | { clientId: string; clientSecret: string; authorizationEndpoint?: string; tokenEndpoint?: string };
  payments: {
    provider: 'sandbox' | 'nowpayments';
    nowpayments: null | { apiUrl: string; apiKey: string; ipnSecret: string };
  };
  rateLimits: RateLimitConfig;
  /** ADMIN_REQUIRE_2FA: admins must set up two-factor sign-in before they get a session. */
  adminRequire2fa?: boolean;
  /** GATEWAY_DOWN_AFTER_SECONDS: a gateway silent this long is down and its leases are settled (default 60 s). */
  gatewayDownAfterMs?: number;
  /** CONNECTION_LOG_DAYS: whole days of the connection log kept (default 30). */
  connectionLogDays?: number;
  /**
   * Upstream pools. `allowPrivate` (GATEWAY_ALLOW_PRIVATE, the gateway's switch): upstream hosts on
   * loopback, private, link-local or metadata addresses are accepted; the server's env always sets
   * it (off unless 1), absent means allowed (tests and development build configs without it).
   * `checkUrl` (UPSTREAM_CHECK_URL): the page an admin's upstream test fetches by default.
   * `balanceMinutes` (UPSTREAM_BALANCE_MINUTES, default 5, fractions allowed): how often one
   * server of the fleet reads every provider account's balance.
   * `driftAlertPercent` (UPSTREAM_DRIFT_ALERT_PERCENT, default 3): a day whose provider count is
   * this much above ours raises an alert.
   */
  upstreams?: { allowPrivate?: boolean; checkUrl?: string; balanceMinutes?: number; driftAlertPercent?: number };
  /**
   * GATEWAY_UPSTREAM_URL is set (the server reads only whether it is): the gateways' default
   * upstream reaches every country, so the whole catalogue is offered (services/network/catalogue.ts).
   */
  defaultUpstream?: boolean;
  /**
   * Register, resend and forgot do their per-account work (a new account, a token, a mail) after
   * the answer, starting at a random moment up to this long after it (default 2000 ms), so that the
   * work one answer leaves behind does not slow the attacker's very next request (timing which
   * would tell a known email from a new one). Tests set 0.
   */
  afterAnswerSpreadMs?: number;
  /**
   * A customer's line test (POST /api/proxy-test): `url` the IP-echo page it fetches
   * (PROXY_CHECK_URL), `gateway` where the server reaches the gateway as a customer's client would
   * (PROXY_CHECK_GATEWAY, else the public endpoint). Absent: the public endpoint (localhost when it
   * has no host) and the default page.
   */
  proxyCheck?: { url: string; gateway: { host: string; port: number } };
  /**
   * CONTENT_DIR: the folder of the public pages' Markdown files (`terms.md`, `privacy.md`, ...), read
   * at each request (services/site/site-pages.ts); absent, the server's default folder applies.
   */
  contentDir?: string;
  /** How long GET /api/status is served from memory (default 5000 ms; tests set 0). */
  statusCacheMs?: number;
  /**
   * The quality board (services/status): `probeMinutes` (QUALITY_PROBE_MINUTES, default 5, fractions
   * allowed) how often one server of the fleet probes every offered country; `incidentOkRate`
   * (QUALITY_INCIDENT_OK_RATE, default 0.5) below this share of its last 3 probes passing a country
   * is degraded. `cacheMs`: how long GET /api/status/quality is served from memory (default 60 s).
   */
  quality?: { probeMinutes?: number; incidentOkRate?: number; cacheMs?: number };
  /** REFERRAL_PERCENT and REFERRAL_PENDING_DAYS (absent: 10 % pending 14 days). */
  referrals?: { percent: number; pendingDays: number };
}

/**
 * Cookies are Secure when browsers reach the server over https (PUBLIC_URL), whatever NODE_ENV: a
 * deployment served over plain HTTP (a LAN host, a container without TLS in front) can still sign
 * in, and one behind https never sends a session over plain HTTP.
 */
export function servedOverHttps(config: Pick<ApiConfig, 'publicUrl'>): boolean {
  return new URL(config.publicUrl).protocol === 'https:';
}

export interface RateLimitRule {
  points: number;
  durationSeconds: number;
  /** Only for a per-account sign-in ceiling: how long each attempt waits while it is exceeded. */
  delayMs?: number;
}
export type RateLimitName =
  | SignInLimitName<'login'>
  | SignInLimitName<'adminLogin'>
  | 'register'
  | 'resend'
  | 'resendAccount'
  | 'forgot'
  | 'forgotAccount'
  | 'reset'
  | 'resetCheck'
  | 'redeem'
  | 'redeemUser'
  | 'batch'
  | 'payment'
  | 'promoPreview'
  | 'twoFactor'
  | 'twoFactorAccount'
  | 'twoFactorAlert'
  | 'accountPassword'
  | 'gift'
  | 'proxyTest'
  | 'lineRotate'
  | 'statusSubscribe'
  | 'statusSubscribeEmail'
  | 'statusLink'
  | 'teamInvite'
  | 'teamInviteEmail';
/**
 * The three limits of one sign-in form: failures per (account, address), reset by a success;
 * failures per address across accounts (slow brute force); a per-account ceiling across addresses.
 */
export type SignInLimitName<P extends string> = `${P}AccountIp` | `${P}Ip` | `${P}Account`;
export type RateLimitConfig = Record<RateLimitName, RateLimitRule>;

const signInLimits = <P extends string>(prefix: P): Record<SignInLimitName<P>, RateLimitRule> =>
  ({
    /** More than 10 wrong passwords in a row from one address for one account: 429. */
    [`${prefix}AccountIp`]: { points: 10, durationSeconds: 15 * 60 },
    /** Wrong passwords from one address, whatever the account. */
    [`${prefix}Ip`]: { points: 100, durationSeconds: 24 * 60 * 60 },
    /** Wrong passwords for one account from anywhere: past this, attempts are slowed, never refused. */
    [`${prefix}Account`]: { points: 20, durationSeconds: 60 * 60, delayMs: 2000 },
  }) as Record<SignInLimitName<P>, RateLimitRule>;

export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  ...signInLimits('login'),
  ...signInLimits('adminLogin'),
  register: { points: 10, durationSeconds: 60 * 60 },
  resend: { points: 10, durationSeconds: 60 * 60 },
  resendAccount: { points: 3, durationSeconds: 60 * 60 },
  forgot: { points: 10, durationSeconds: 60 * 60 },
  forgotAccount: { points: 3, durationSeconds: 60 * 60 },
  reset: { points: 20, durationSeconds: 60 * 60 },
  /** The reset page's link check as it opens (a guess at a 256-bit token is hopeless; this bounds the lookups). */
  resetCheck: { points: 60, durationSeconds: 60 * 60 },
  redeem: { points: 30, durationSeconds: 15 * 60 },
  redeemUser: { points: 10, durationSeconds: 15 * 60 },
  batch: { points: 20, durationSeconds: 15 * 60 },
  /** Orders per user: each one is a provider invoice. */
  payment: { points: 20, durationSeconds: 60 * 60 },
  /** Promo code look-ups from the Top Up page as the code is typed (not a place to guess codes). */
  promoPreview: { points: 60, durationSeconds: 15 * 60 },
  /** Wrong second-factor codes per address (each pending sign-in also dies after 5). */
  twoFactor: { points: 30, durationSeconds: 15 * 60 },
  /** Wrong second-factor codes per account, across addresses and pending sign-ins: past it the code step is 429. */
  twoFactorAccount: { points: 20, durationSeconds: 15 * 60 },
  /** The mail that tells an owner their password works but the codes are being guessed: one per window. */
  twoFactorAlert: { points: 1, durationSeconds: 15 * 60 },
  /** Wrong current passwords per user (changing the password, deleting the account). */
  accountPassword: { points: 10, durationSeconds: 15 * 60 },
  /** Gift codes made per user. */
  gift: { points: 30, durationSeconds: 60 * 60 },
  /** Line tests per user (each one is a connection through the gateway and a page fetched). */
  proxyTest: { points: 10, durationSeconds: 60 },
  /** "A new IP now" per user: each one re-derives a line's session on every gateway and closes its tunnels. */
  lineRotate: { points: 30, durationSeconds: 60 },
  /** Status-mail subscriptions per address (each one may mail a stranger's address once). */
  statusSubscribe: { points: 10, durationSeconds: 60 * 60 },
  /** Confirmation mails per email address, whoever asks. */
  statusSubscribeEmail: { points: 3, durationSeconds: 60 * 60 },
  /** Confirm and unsubscribe links followed per address. */
  statusLink: { points: 30, durationSeconds: 15 * 60 },
  /** Team invites sent per account (each one mails an address the account names). */
  teamInvite: { points: 20, durationSeconds: 60 * 60 },
  /** Invite mails per invited address, whichever account sends them. */
  teamInviteEmail: { points: 3, durationSeconds: 60 * 60 },
};

export type { UsageType };
