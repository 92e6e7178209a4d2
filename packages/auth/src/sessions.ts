/**
 * Sessions (lucia v3, kept behind this module so it can be replaced in one place). The cookie holds
 * a random id; the database holds only its SHA-256, so a leaked table cannot be replayed.
 * Users and admins have separate cookies and tables. Cookies: HttpOnly, SameSite=Lax, Secure in
 * production, 30 days sliding.
 */
import { eq, getTableName, lte, sql } from 'drizzle-orm';
import { Lucia, TimeSpan, type Adapter, type DatabaseSession, type DatabaseUser } from 'lucia';
import { adminSessions, adminUsers, sessions, users, type Db } from '@proxyhub/db';
import { sha256Hex } from './crypto';

type SessionTable = typeof sessions | typeof adminSessions;
type UserTable = typeof users | typeof adminUsers;

class HashedSessionAdapter implements Adapter {
  // Every authenticated request runs this lookup: build its SQL once (drizzle otherwise rebuilds
  // the query on each call, a measurable share of a request's CPU).
  private readonly lookup;

  constructor(
    private readonly db: Db,
    private readonly sessionTable: SessionTable,
    private readonly userTable: UserTable,
  ) {
    const s = sessionTable;
    const u = userTable;
    this.lookup = db
      .select({ id: s.id, userId: s.userId, expiresAt: s.expiresAt, user: u })
      .from(s)
      .innerJoin(u, eq(u.id, s.userId))
      .where(eq(s.id, sql.placeholder('hash')))
      .limit(1)
      .prepare(`${getTableName(s)}_lookup`);
  }

  async getSessionAndUser(sessionId: string): Promise<[DatabaseSession | null, DatabaseUser | null]> {
    const rows = await this.lookup.execute({ hash: sha256Hex(sessionId) });
    const row = rows[0];
    if (!row) return [null, null];
    return [
      { id: sessionId, userId: row.userId, expiresAt: row.expiresAt, attributes: {} },
      { id: row.userId, attributes: row.user as unknown as Record<string, unknown> },
    ];
  }

  async getUserSessions(userId: string): Promise<DatabaseSession[]> {
    const rows = await this.db.select().from(this.sessionTable).where(eq(this.sessionTable.userId, userId));
    // The ids are hashes; callers only count or delete them.
    return rows.map((r) => ({ id: r.id, userId: r.userId, expiresAt: r.expiresAt, attributes: {} }));
  }

  async setSession(session: DatabaseSession): Promise<void> {
    await this.db.insert(this.sessionTable).values({ id: sha256Hex(session.id), userId: session.userId, expiresAt: session.expiresAt });
  }

  async updateSessionExpiration(sessionId: string, expiresAt: Date): Promise<void> {
    await this.db.update(this.sessionTable).set({ expiresAt }).where(eq(this.sessionTable.id, sha256Hex(sessionId)));
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.db.delete(this.sessionTable).where(eq(this.sessionTable.id, sha256Hex(sessionId)));
  }

  async deleteUserSessions(userId: string): Promise<void> {
    await this.db.delete(this.sessionTable).where(eq(this.sessionTable.userId, userId));
  }

  async deleteExpiredSessions(): Promise<void> {
    await this.db.delete(this.sessionTable).where(lte(this.sessionTable.expiresAt, new Date()));
  }
}

export const USER_SESSION_COOKIE = 'session';
export const ADMIN_SESSION_COOKIE = 'admin_session';

export function createSessionManagers(db: Db, opts: { secure: boolean }) {
  const make = (cookieName: string, table: SessionTable, userTable: UserTable, days: number) =>
    new Lucia(new HashedSessionAdapter(db, table, userTable), {
      sessionExpiresIn: new TimeSpan(days, 'd'),
      sessionCookie: { name: cookieName, expires: true, attributes: { secure: opts.secure, sameSite: 'lax' } },
      getUserAttributes: (attributes) => attributes,
    });
  return {
    user: make(USER_SESSION_COOKIE, sessions, users, 30),
    // Admin sessions are shorter: the panel holds the keys to the money.
    admin: make(ADMIN_SESSION_COOKIE, adminSessions, adminUsers, 1),
  };
}
export type SessionManagers = ReturnType<typeof createSessionManagers>;
export type SessionManager = SessionManagers['user'];
