import { MAX_DURATION_MINUTES, MIN_DURATION_MINUTES, ROTATING_DURATION_MINUTES } from './constants';

/**
 * Proxy usernames: `<proxyUserId>_<COUNTRY[-STATE[-CITY]]>_<durationMinutes>_<TOKEN8>`, where a
 * duration of 0 is a rotating line (a new exit per connection) and 1 to 10080 a sticky one.
 * The web generator builds them and the gateway parses them, so both use this one module.
 */
export const PROXY_USER_ID_RE = /^[a-z0-9]{6,24}$/;
export const LOCATION_CODE_RE = /^[A-Z0-9]{1,16}$/;
export const SESSION_TOKEN_RE = /^[A-Z0-9]{8}$/;
const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export interface ProxyLocation {
  country: string;
  state?: string | undefined;
  city?: string | undefined;
}

export interface ProxyUsernameParts {
  proxyUserId: string;
  location: ProxyLocation;
  durationMinutes: number;
  token: string;
}

/** A rotating line: no sticky session, each connection may leave through a new exit. */
export function isRotating(parts: Pick<ProxyUsernameParts, 'durationMinutes'>): boolean {
  return parts.durationMinutes === ROTATING_DURATION_MINUTES;
}

export type ParseResult = { ok: true; value: ProxyUsernameParts } | { ok: false; reason: string };

/** Location string joined by hyphens: `US`, `US-CA`, `US-CA-LOSANGELES`. */
export function locationString(loc: ProxyLocation): string {
  const parts = [loc.country];
  if (loc.state) {
    parts.push(loc.state);
    if (loc.city) parts.push(loc.city);
  }
  return parts.join('-');
}

/** 8 uniformly random characters of A-Z0-9 (rejection sampling avoids modulo bias). */
export function randomSessionToken(length = 8): string {
  let out = '';
  const buf = new Uint8Array(length * 2);
  while (out.length < length) {
    globalThis.crypto.getRandomValues(buf);
    for (const b of buf) {
      if (b < 252 && out.length < length) out += TOKEN_ALPHABET[b % 36];
    }
  }
  return out;
}

export function buildProxyUsername(parts: Omit<ProxyUsernameParts, 'token'> & { token?: string }): string {
  const token = parts.token ?? randomSessionToken();
  return [parts.proxyUserId, locationString(parts.location), String(parts.durationMinutes), token].join('_');
}

export function parseProxyUsername(username: string): ParseResult {
  if (username.length > 128) return { ok: false, reason: 'username too long' };
  const fields = username.split('_');
  if (fields.length !== 4) {
    return { ok: false, reason: 'username must be <proxy user id>_<COUNTRY[-STATE[-CITY]]>_<minutes>_<TOKEN8>' };
  }
  const [proxyUserId, loc, minutes, token] = fields as [string, string, string, string];
  if (!PROXY_USER_ID_RE.test(proxyUserId)) return { ok: false, reason: 'invalid proxy user id' };
  const codes = loc.split('-');
  if (codes.length < 1 || codes.length > 3 || !codes.every((c) => LOCATION_CODE_RE.test(c))) {
    return { ok: false, reason: 'invalid location: expected COUNTRY[-STATE[-CITY]] in uppercase letters and digits' };
  }
  if (!/^\d{1,5}$/.test(minutes)) return { ok: false, reason: 'invalid duration: whole minutes expected' };
  const durationMinutes = Number(minutes);
  if (durationMinutes !== ROTATING_DURATION_MINUTES && (durationMinutes < MIN_DURATION_MINUTES || durationMinutes > MAX_DURATION_MINUTES)) {
    return { ok: false, reason: `invalid duration: 0 (rotating) or ${MIN_DURATION_MINUTES} to ${MAX_DURATION_MINUTES} minutes` };
  }
  if (!SESSION_TOKEN_RE.test(token)) return { ok: false, reason: 'invalid session token: 8 characters A-Z0-9' };
  const [country, state, city] = codes as [string, string | undefined, string | undefined];
  return { ok: true, value: { proxyUserId, location: { country, state, city }, durationMinutes, token } };
}
