/**
 * Sticky sessions: a username's token keeps one upstream session id for its duration, counted from
 * first use. After that the token gets a new id (a new exit), as the generator's duration promises.
 */
export class StickySessions {
  private readonly map = new Map<string, { id: string; expiresAt: number }>();
  private calls = 0;

  /** The upstream session id for (account, token) now. */
  get(proxyUserId: string, token: string, durationMinutes: number, now = Date.now()): string {
    const key = `${proxyUserId}_${token}`;
    const cur = this.map.get(key);
    if (cur && cur.expiresAt > now) return cur.id;
    if (++this.calls % 1024 === 0) this.sweep(now);
    // Letters and digits only (providers put the id inside their own usernames); the start minute
    // makes each period of the token a new session.
    const id = `${proxyUserId}${token.toLowerCase()}${Math.floor(now / 60_000).toString(36)}`;
    this.map.set(key, { id, expiresAt: now + durationMinutes * 60_000 });
    return id;
  }

  private sweep(now: number): void {
    for (const [k, v] of this.map) if (v.expiresAt <= now) this.map.delete(k);
  }

  get size(): number {
    return this.map.size;
  }
}
