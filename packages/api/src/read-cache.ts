/**
 * A short-lived in-process cache of what nearly every request reads: who a session cookie or API
 * key signs in, and the signed-in user's own view. On the embedded PGlite (one connection) those
 * lookups were the whole cost of a request.
 *
 * Freshness, which revocation depends on:
 * - on this process, every write clears the cache when it has committed (every tRPC mutation, and
 *   the few writers outside tRPC call `invalidate()`), so a revoked session, a rotated API key or a
 *   suspension is refused by the very next request;
 * - another server process holds an entry for at most `ttlMs` (1 s by default), so it refuses the
 *   same within that time without any messaging between processes;
 * - a read that started before a write finished is not stored (the generation moved on), so a
 *   write can never be hidden behind a value read just before it.
 */
export class ReadCache {
  private readonly entries = new Map<string, { value: unknown; expiresAt: number }>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    /** A bound on memory: past it the cache starts over (entries live a second anyway). */
    private readonly maxEntries = 50_000,
  ) {}

  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit.value as T;
    const generation = this.generation;
    const value = await load();
    if (this.ttlMs > 0 && generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
    }
    return value;
  }

  /** Something was written: nothing read before it may be served again. */
  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }
}
