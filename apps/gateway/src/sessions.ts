/**
 * Sticky sessions: a username's token keeps one upstream session id for its duration, counted from
 * first use, and the upstream pool that first carried it. After that the token gets a new id (a new
 * exit) and may land on another pool, as the generator's duration promises.
 */
export interface StickySession {
  /** The default upstream's session id. */
  readonly id: string;
  /** The pool upstream this session keeps (null until one carried it, or on the default upstream). */
  upstreamId: string | null;
  readonly expiresAt: number;
}

export class StickySessions {
  private readonly map = new Map<string, StickySession>();
  private calls = 0;

  /** The upstream session id for (account, token) now. */
  get(proxyUserId: string, token: string, durationMinutes: number, now = Date.now()): string {
    return this.session(proxyUserId, token, durationMinutes, now).id;
  }

  /** The sticky session of (account, token) now: a new one once the last one's duration is over. */
  session(proxyUserId: string, token: string, durationMinutes: number, now = Date.now()): StickySession {
    const key = `${proxyUserId}_${token}`;
    const cur = this.map.get(key);
    if (cur && cur.expiresAt > now) return cur;
    if (++this.calls % 1024 === 0) this.sweep(now);
    // Letters and digits only (providers put the id inside their own usernames); the start minute
    // makes each period of the token a new session.
    const id = `${proxyUserId}${token.toLowerCase()}${Math.floor(now / 60_000).toString(36)}`;
    const session: StickySession = { id, upstreamId: null, expiresAt: now + durationMinutes * 60_000 };
    this.map.set(key, session);
    return session;
  }

  private sweep(now: number): void {
    for (const [k, v] of this.map) if (v.expiresAt <= now) this.map.delete(k);
  }

  get size(): number {
    return this.map.size;
  }
}
