import { and, eq, isNull } from 'drizzle-orm';
import { safeEqual } from '@proxyhub/auth';
import type { adminUsers} from '@proxyhub/db';
import { users } from '@proxyhub/db';
import type { ApiDeps } from './deps';

export interface CookieAttributes {
  secure?: boolean;
  path?: string;
  domain?: string;
  sameSite?: 'lax' | 'strict' | 'none';
  httpOnly?: boolean;
  maxAge?: number;
  expires?: Date;
}

/** The little the API needs from an HTTP request; apps/server adapts Fastify to it. */
export interface RequestLike {
  ip: string;
  header(name: string): string | undefined;
  cookie(name: string): string | undefined;
  setCookie(name: string, value: string, attributes: CookieAttributes): void;
}

export type UserRow = typeof users.$inferSelect;
export type AdminRow = typeof adminUsers.$inferSelect;

export interface Context {
  deps: ApiDeps;
  db: ApiDeps['db'];
  req: RequestLike;
  user: UserRow | null;
  /** Set when the user came through the session cookie (not the API key). */
  sessionId: string | null;
  admin: AdminRow | null;
  adminSessionId: string | null;
  internal: boolean;
}

/**
 * `Authorization: Bearer …` authenticates a request by that header alone: cookies are then ignored,
 * even when the token is junk (a junk header must not leave a cookie's ambient authority in charge).
 */
export function usesBearer(authorization: string | undefined): boolean {
  return /^Bearer(\s|$)/i.test(authorization ?? '');
}

function bearerToken(req: RequestLike): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(req.header('authorization') ?? '');
  return m ? m[1]! : null;
}

/** Resolves who is calling: `Authorization: Bearer <apiKey or internal key>` alone, or else the user and admin session cookies. */
export async function createContext(deps: ApiDeps, req: RequestLike): Promise<Context> {
  const ctx: Context = { deps, db: deps.db, req, user: null, sessionId: null, admin: null, adminSessionId: null, internal: false };
  const { user: userSessions, admin: adminSessions } = deps.sessions;

  if (usesBearer(req.header('authorization'))) {
    const token = bearerToken(req);
    if (!token) return ctx;
    if (safeEqual(token, deps.config.internalApiKey)) {
      ctx.internal = true;
    } else {
      const [row] = await deps.db
        .select()
        .from(users)
        .where(and(eq(users.apiKeyHash, deps.secrets.lookupHash(token)), isNull(users.disabledAt)))
        .limit(1);
      ctx.user = row ?? null;
    }
    return ctx;
  }

  const sid = req.cookie(userSessions.sessionCookieName);
  if (sid) {
    const { session, user } = await userSessions.validateSession(sid);
    if (session && user) {
      const row = user as unknown as UserRow;
      if (!row.disabledAt) {
        ctx.user = row;
        ctx.sessionId = session.id;
      }
      // Sliding expiry: lucia marks a session fresh when it extended it.
      if (session.fresh) {
        const c = userSessions.createSessionCookie(session.id);
        req.setCookie(c.name, c.value, c.attributes);
      }
    } else {
      const c = userSessions.createBlankSessionCookie();
      req.setCookie(c.name, c.value, c.attributes);
    }
  }

  const adminSid = req.cookie(adminSessions.sessionCookieName);
  if (adminSid) {
    const { session, user } = await adminSessions.validateSession(adminSid);
    if (session && user) {
      ctx.admin = user as unknown as AdminRow;
      ctx.adminSessionId = session.id;
      if (session.fresh) {
        const c = adminSessions.createSessionCookie(session.id);
        req.setCookie(c.name, c.value, c.attributes);
      }
    }
  }
  return ctx;
}
