/**
 * Sticky sessions, derived: every gateway computes a line's session from what they all share (the
 * internal API key as the secret, the line's account and token, its duration, the clock), so the
 * same line gets the same upstream session id on each of them with no state to share, Redis or not.
 *
 * Periods: a line of D minutes has periods of D minutes laid end to end from the epoch, shifted by
 * an offset derived from the line (so lines of one duration do not all change exit at the same
 * instant). The consequence: a line's first period ends at its next boundary, anywhere from 0 to D
 * minutes after its first connection; every later period lasts D minutes.
 *
 * `sid`: 8 characters of [a-z0-9] from an HMAC over (account, token, duration, period). Two lines
 * share one only by chance: 36^8 = 2.8e12 values, so among n sessions live at once the chance that
 * any two collide is about n^2 / 5.6e12 (1.8e-5 for 10,000 lines, 0.18% for 100,000); a collision
 * lasts one period at most (the next period draws anew).
 *
 * "A new IP now" (POST /api/lines/rotate): the server keeps a rotation counter per line, which every
 * gateway gets with the account's login answer. A rotation made in the current period goes into the
 * HMAC, so the line gets a new `sid` for the rest of that period, the same on every gateway; the
 * next period draws anew, as without one (a line never rotated keeps exactly the ids it had).
 */
import { createHmac } from 'node:crypto';

export interface LineSession {
  /** The upstream session id (a template's {sid}): 8 characters of [a-z0-9]; '' for a rotating line. */
  readonly sid: string;
  /** The default upstream's session id ({session} of GATEWAY_UPSTREAM_URL); '' for a rotating line. */
  readonly id: string;
  /** When this period ends (ms since the epoch); 0 for a rotating line. */
  readonly endsAt: number;
  /** The pool upstream that carried it (informational: the pool is chosen from `sid`). */
  upstreamId: string | null;
}

const SID_SPACE = 36n ** 8n;

/** A line's rotation counter and when it last moved (ms since the epoch), as the server keeps it. */
export interface Rotation {
  readonly count: number;
  readonly at: number;
}

export class StickySessions {
  constructor(private readonly secret: string) {}

  private mac(text: string): Buffer {
    return createHmac('sha256', this.secret).update(text).digest();
  }

  /** Where the line's periods are shifted from the epoch, in ms (0 to D - 1). */
  offsetMs(proxyUserId: string, token: string, durationMinutes: number): number {
    const periodMs = durationMinutes * 60_000;
    return this.mac(`offset\n${proxyUserId}\n${token}\n${durationMinutes}`).readUIntBE(0, 6) % periodMs;
  }

  /** The session of (account, token) now: the same on every gateway for the same period and rotation. */
  session(proxyUserId: string, token: string, durationMinutes: number, now = Date.now(), rotation?: Rotation): LineSession {
    if (durationMinutes <= 0) return { sid: '', id: '', endsAt: 0, upstreamId: null };
    const periodMs = durationMinutes * 60_000;
    const offset = this.offsetMs(proxyUserId, token, durationMinutes);
    const period = Math.floor((now + offset) / periodMs);
    // Only a rotation in this period counts: one from an earlier period was already replaced by this
    // one's draw. (A server clock a little ahead may date it in the next period: it counts too.)
    const rotated = rotation && Math.floor((rotation.at + offset) / periodMs) >= period ? rotation.count : 0;
    const draw = rotated ? `${period}\n${rotated}` : `${period}`;
    const sid = (this.mac(`sid\n${proxyUserId}\n${token}\n${durationMinutes}\n${draw}`).readBigUInt64BE(0) % SID_SPACE).toString(36).padStart(8, '0');
    // Letters and digits only (providers put the id inside their own usernames).
    const id = `${proxyUserId}${token.toLowerCase()}${period.toString(36)}${rotated ? `r${rotated.toString(36)}` : ''}`;
    return { sid, id, endsAt: (period + 1) * periodMs - offset, upstreamId: null };
  }

  /** The default upstream's session id for (account, token) now. */
  get(proxyUserId: string, token: string, durationMinutes: number, now = Date.now()): string {
    return this.session(proxyUserId, token, durationMinutes, now).id;
  }
}
