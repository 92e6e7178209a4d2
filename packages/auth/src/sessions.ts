/**
 * Sessions: start, validate, end, end all, and the cookie that carries them. Lucia v3 does the work
 * and nothing outside this module sees it, so it can be replaced in one place. The cookie holds a
 * random id; the database holds only its SHA-256, so a leaked table cannot be replayed. Users and
 * admins have separate cookies and tables. Cookies: HttpOnly, SameSite=Lax, Secure when served over https,
 * sliding (users 30 days, admins 1).
 */
import { and, eq, getTableName, lte, ne, sql } from 'drizzle-orm';
import { Lucia, TimeSpan, type Adapter, type DatabaseSession, type DatabaseUser } from 'lucia';
import { adminSessions, adminUsers, sessions, users, type Db, type DbOrTx } from '@proxyhub/db';
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
    await this.db
      .update(this.sessionTable)
      .set({ expiresAt })
      .where(eq(this.sessionTable.id, sha256Hex(sessionId)));
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.db.delete(this.sessionTable).where(eq(this.sessionTable.id, sha256Hex(sessionId)));
  }

  async deleteUserSessions(userId: string): Promise<void> {
    await this.db.delete(this.sessionTable).where(eq(this.sessionTable.userId, userId));
  }

  /** Every session of the user but one (given by its cookie value; null: all of them). */
  async deleteOtherSessions(userId: string, keepSessionId: string | null): Promise<void> {
    const t = this.sessionTable;
    await this.db.delete(t).where(keepSessionId ? and(eq(t.userId, userId), ne(t.id, sha256Hex(keepSessionId))) : eq(t.userId, userId));
  }

  async deleteExpiredSessions(): Promise<void> {
    await this.db.delete(this.sessionTable).where(lte(this.sessionTable.expiresAt, new Date()));
  }
}

export interface CookieAttributes {
  secure?: boolean;
  path?: string;
  domain?: string;
  sameSite?: 'lax' | 'strict' | 'none';
  httpOnly?: boolean;
  maxAge?: number;
  expires?: Date;
}

/** What the response must set: a session cookie, or a blank one that clears it. */
export interface SessionCookie {
  name: string;
  value: string;
  attributes: CookieAttributes;
}

export type UserAccount = typeof users.$inferSelect;
export type AdminAccount = typeof adminUsers.$inferSelect;

/** A session cookie checked: the account it signs in, or nothing when it names no live session. */
export type SessionCheck<Account> =
  | { account: Account; sessionId: string; /** The expiry slid forward: the cookie must be sent again. */ refreshed: SessionCookie | null }
  | { account: null; sessionId: null; refreshed: null };

/** One kind of sign-in (users or admins): its cookie, its table, its lifetime. */
export class SessionStore<Account extends UserAccount | AdminAccount> {
  constructor(
    private readonly lucia: Lucia,
    private readonly adapter: HashedSessionAdapter,
    /** Runs after a session was created for the account (a user's sign-in count). */
    private readonly onStart: ((accountId: string) => Promise<void>) | null = null,
  ) {}

  get cookieName(): string {
    return this.lucia.sessionCookieName;
  }

  /** A new session for the account. The one the browser carried before, if any, is ended (fixation). */
  async start(accountId: string, replacing: string | null = null): Promise<SessionCookie> {
    if (replacing) await this.lucia.invalidateSession(replacing);
    const session = await this.lucia.createSession(accountId, {});
    await this.onStart?.(accountId);
    return plain(this.lucia.createSessionCookie(session.id));
  }

  async validate(sessionId: string): Promise<SessionCheck<Account>> {
    const { session, user } = await this.lucia.validateSession(sessionId);
    if (!session || !user) return { account: null, sessionId: null, refreshed: null };
    // The adapter hands lucia the account's whole row as the user's attributes.
    const account = user as unknown as Account;
    // Sliding expiry: lucia marks a session fresh when it extended it.
    return { account, sessionId: session.id, refreshed: session.fresh ? plain(this.lucia.createSessionCookie(session.id)) : null };
  }

  /** Ends one session; the returned blank cookie clears it from the browser. */
  async end(sessionId: string | null): Promise<SessionCookie> {
    if (sessionId) await this.lucia.invalidateSession(sessionId);
    return this.blankCookie();
  }

  /** Ends every session of an account (a password reset signs out everywhere). */
  async endAll(accountId: string): Promise<void> {
    await this.lucia.invalidateUserSessions(accountId);
  }

  /** Ends every session of an account except the caller's own (a password change keeps this one). */
  async endOthers(accountId: string, keepSessionId: string | null): Promise<void> {
    await this.adapter.deleteOtherSessions(accountId, keepSessionId);
  }

  blankCookie(): SessionCookie {
    return plain(this.lucia.createBlankSessionCookie());
  }

  /** Deletes expired rows (a periodic job; expired sessions are refused anyway). */
  async sweepExpired(): Promise<void> {
    await this.lucia.deleteExpiredSessions();
  }
}

const plain = (c: { name: string; value: string; attributes: CookieAttributes }): SessionCookie => ({ name: c.name, value: c.value, attributes: c.attributes });

function store<Account extends UserAccount | AdminAccount>(
  db: Db,
  cookieName: string,
  table: SessionTable,
  userTable: UserTable,
  days: number,
  secure: boolean,
  onStart: ((accountId: string) => Promise<void>) | null = null,
) {
  const adapter = new HashedSessionAdapter(db, table, userTable);
  const lucia = new Lucia(adapter, {
    sessionExpiresIn: new TimeSpan(days, 'd'),
    sessionCookie: { name: cookieName, expires: true, attributes: { secure, sameSite: 'lax' } },
    getUserAttributes: (attributes) => attributes,
  });
  return new SessionStore<Account>(lucia, adapter, onStart);
}

/** The two kinds of sign-in. Cookie names are the stores' own: callers read them from here. */
export function createSessions(db: Db, opts: { secure: boolean }) {
  return {
    // Every user session started is one more sign-in (the first-visit hints read the count).
    user: store<UserAccount>(db, 'session', sessions, users, 30, opts.secure, async (userId) => {
      await db
        .update(users)
        .set({ signInCount: sql`${users.signInCount} + 1` })
        .where(eq(users.id, userId));
    }),
    // Admin sessions are shorter: the panel holds the keys to the money.
    admin: store<AdminAccount>(db, 'admin_session', adminSessions, adminUsers, 1, opts.secure),
  };
}
export type Sessions = ReturnType<typeof createSessions>;

/**
 * Deletes every session of a user inside the caller's transaction, so they end together with the
 * change that ends them (a suspension, a deleted account); the stores' endAll runs on its own.
 */
export async function deleteUserSessions(tx: DbOrTx, userId: string): Promise<void> {
  await tx.delete(sessions).where(eq(sessions.userId, userId));
}
