import { ACCOUNT_HEADER, NOT_A_MEMBER, type TeamRole } from '@proxyhub/core';
import type { Locale } from '@proxyhub/core/i18n';
import { safeEqual, sha256Hex, type AdminAccount, type SessionCheck, type SessionCookie, type SessionStore, type UserAccount } from '@proxyhub/auth';
import type { ApiDeps } from './deps';
import { findApiKey, keyRefusal, touchApiKey, type AuthenticatedKey } from './services/accounts/api-keys';
import { findMembership } from './services/accounts/team';
import { recordNetwork } from './services/money/referrals';

/** The little the API reads from an HTTP request; apps/server adapts Fastify to it. */
export interface RequestLike {
  ip: string;
  header(name: string): string | undefined;
  cookie(name: string): string | undefined;
  /** The caller's language: their choice (the locale cookie), else their browser's; a new account starts in it. */
  locale: Locale;
}

/** The little the API writes to the response: cookies. Procedures and middleware use it, services never. */
export interface ResponseLike {
  setCookie(cookie: SessionCookie): void;
}

export type UserRow = UserAccount;
export type AdminRow = AdminAccount;

export interface Context {
  deps: ApiDeps;
  db: ApiDeps['db'];
  req: RequestLike;
  res: ResponseLike;
  user: UserRow | null;
  /** Set when the user came through the session cookie (not the API key). */
  sessionId: string | null;
  admin: AdminRow | null;
  adminSessionId: string | null;
  internal: boolean;
  /** The API key belongs to a suspended user: refused with a message that says so. */
  suspended: boolean;
  /** The API key the user came through (null: a session); its scopes bound what the call may do. */
  apiKey: AuthenticatedKey | null;
  /** Why a known API key was refused for this request (expired, address outside its networks): a 401 saying so. */
  apiKeyRefused: string | null;
  /**
   * A team member acting on another account (`X-ProxyHub-Account`): `user` is then that account
   * (every service charges and reads it), `actor` the member and their role, `self` their own account.
   */
  actor: { id: string; name: string; role: TeamRole } | null;
  self: UserRow | null;
  /** The header named an account the caller is not a member of: a 403 saying so. */
  accountRefused: string | null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Acting on a team's account: the membership is read on every request (through the read cache, so
 * a removed member is refused on the next request here and within its bound on every server).
 */
async function actOnTeamAccount(deps: ApiDeps, ctx: Context, header: string | undefined): Promise<void> {
  const accountId = header?.trim();
  if (!accountId || !ctx.user || accountId.toLowerCase() === ctx.user.id) return;
  // A key belongs to one account: it never switches.
  if (ctx.apiKey || !UUID_RE.test(accountId)) {
    ctx.accountRefused = NOT_A_MEMBER;
    return;
  }
  const member = ctx.user;
  const found = await deps.cache.get(`membership:${accountId.toLowerCase()}:${member.id}`, () => findMembership(deps.db, accountId.toLowerCase(), member.id));
  if (!found) {
    ctx.accountRefused = NOT_A_MEMBER;
    return;
  }
  if (found.account.disabledAt) {
    ctx.suspended = true;
    ctx.user = null;
    return;
  }
  ctx.self = member;
  ctx.user = found.account;
  ctx.actor = { id: member.id, name: member.name, role: found.role };
}

/**
 * `Authorization: Bearer …` authenticates a request by that header alone: cookies are then ignored,
 * even when the token is junk (a junk header must not leave a cookie's ambient authority in charge).
 */
export function usesBearer(authorization: string | undefined): boolean {
  return /^Bearer(\s|$)/i.test(authorization ?? '');
}

function bearerToken(authorization: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  return m ? m[1]! : null;
}

/** Whether an Authorization header carries the internal key (gateways, internal tools). */
export function isInternalCaller(authorization: string | undefined, internalApiKey: string): boolean {
  const token = bearerToken(authorization);
  return token !== null && safeEqual(token, internalApiKey);
}

/** Resolves who is calling: `Authorization: Bearer <apiKey or internal key>` alone, or else the user and admin session cookies. */
export async function createContext(deps: ApiDeps, req: RequestLike, res: ResponseLike): Promise<Context> {
  const ctx: Context = {
    deps,
    db: deps.db,
    req,
    res,
    user: null,
    sessionId: null,
    admin: null,
    adminSessionId: null,
    internal: false,
    suspended: false,
    apiKey: null,
    apiKeyRefused: null,
    actor: null,
    self: null,
    accountRefused: null,
  };
  const { user: userSessions, admin: adminSessions } = deps.sessions;

  if (usesBearer(req.header('authorization'))) {
    const token = bearerToken(req.header('authorization'));
    if (!token) return ctx;
    if (isInternalCaller(req.header('authorization'), deps.config.internalApiKey)) {
      ctx.internal = true;
    } else {
      const keyHash = deps.secrets.lookupHash(token);
      const found = await deps.cache.get(`api-key:${keyHash}`, () => findApiKey(deps.db, keyHash));
      if (!found) return ctx;
      const refused = keyRefusal(found.key, req.ip);
      if (refused) ctx.apiKeyRefused = refused;
      else if (found.user.disabledAt) ctx.suspended = true;
      else {
        ctx.user = found.user;
        ctx.apiKey = { id: found.key.id, name: found.key.name, scopes: found.key.scopes, isDefault: found.key.isDefault };
        await touchApiKey(deps.db, found.key.id);
        await actOnTeamAccount(deps, ctx, req.header(ACCOUNT_HEADER));
      }
    }
    return ctx;
  }

  const sid = req.cookie(userSessions.cookieName);
  if (sid) {
    const check = await validateCached(deps, 'user', userSessions, sid);
    if (check.account) {
      if (!check.account.disabledAt) {
        ctx.user = check.account;
        ctx.sessionId = check.sessionId;
        await actOnTeamAccount(deps, ctx, req.header(ACCOUNT_HEADER));
      }
      if (check.refreshed) res.setCookie(check.refreshed);
    } else {
      res.setCookie(userSessions.blankCookie());
    }
  }

  const adminSid = req.cookie(adminSessions.cookieName);
  if (adminSid) {
    const check = await validateCached(deps, 'admin', adminSessions, adminSid);
    // A disabled admin's sessions are deleted when it is disabled; one racing that is refused here.
    if (check.account && !check.account.disabledAt) {
      ctx.admin = check.account;
      ctx.adminSessionId = check.sessionId;
      if (check.refreshed) res.setCookie(check.refreshed);
    }
  }
  return ctx;
}

type SessionKind = 'user' | 'admin';

/**
 * A session check through the read cache. An id that names no session is cached too: ids are
 * random, so one that is unknown now never becomes valid. The sliding expiry's new cookie is sent
 * by the request that extended it, not repeated by the ones served from the cache.
 */
async function validateCached<Account extends UserAccount | AdminAccount>(
  deps: ApiDeps,
  kind: SessionKind,
  store: SessionStore<Account>,
  sessionId: string,
): Promise<SessionCheck<Account>> {
  const loaded: { check?: SessionCheck<Account> } = {};
  const check = await deps.cache.get(`${kind}-session:${sha256Hex(sessionId)}`, async () => {
    const fresh = (loaded.check = await store.validate(sessionId));
    return fresh.refreshed ? { ...fresh, refreshed: null } : fresh;
  });
  return loaded.check ?? check;
}

/**
 * Signs the caller in: a new session on the response's cookie, the one the request carried ended
 * (rotation against fixation). Services say who signed in; procedures apply it with this.
 */
export async function startSession(ctx: Context, kind: SessionKind, accountId: string): Promise<void> {
  const current = kind === 'user' ? ctx.sessionId : ctx.adminSessionId;
  ctx.res.setCookie(await ctx.deps.sessions[kind].start(accountId, current));
  // Every sign-in, whatever its way: the networks a referral rule compares are the ones in use.
  if (kind === 'user') await recordNetwork(ctx.db, accountId, ctx.req.ip);
}

/** Signs the caller out: the request's session ended and its cookie cleared. */
export async function endSession(ctx: Context, kind: SessionKind): Promise<void> {
  const current = kind === 'user' ? ctx.sessionId : ctx.adminSessionId;
  ctx.res.setCookie(await ctx.deps.sessions[kind].end(current));
}
