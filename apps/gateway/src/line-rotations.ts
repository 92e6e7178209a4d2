/**
 * "A new IP now": the rotation counters of the lines the gateway serves, as the server's login
 * answers carry them (auth-cache.ts refreshes those within seconds). The sticky session of a line
 * is derived with its counter (sessions.ts); a counter that moves closes the line's open tunnels.
 */
import { LRUCache } from 'lru-cache';
import { MAX_DURATION_MINUTES, type LineRotation } from '@proxyhub/core';
import type { Rotation } from './sessions';

/** Why a line's connections were closed: the connection log's outcome `rotated`. */
export const ROTATED_REASON = 'a new IP was asked for this line';

/** Lines named by clients are bounded; a rotation matters no longer than the longest period. */
const MAX_LINES = 100_000;

export class LineRotations {
  private readonly known = new LRUCache<string, Rotation>({ max: MAX_LINES, ttl: MAX_DURATION_MINUTES * 60_000 });

  /** The line's last rotation, if the server told of one. */
  of(proxyAccountId: string, token: string): Rotation | undefined {
    return this.known.get(`${proxyAccountId}\0${token}`);
  }

  /** Takes an account's rotations from a login answer: the tokens of the lines whose counter moved (any change is a new session). */
  learn(proxyAccountId: string, rotations: readonly LineRotation[]): string[] {
    const moved: string[] = [];
    for (const r of rotations) {
      const key = `${proxyAccountId}\0${r.token}`;
      const before = this.known.get(key);
      if (before && before.count === r.count) continue;
      this.known.set(key, { count: r.count, at: r.at });
      moved.push(r.token);
    }
    return moved;
  }
}
