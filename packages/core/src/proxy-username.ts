import { MAX_DURATION_MINUTES, MIN_DURATION_MINUTES, ROTATING_DURATION_MINUTES } from './constants';

/**
 * Proxy usernames: `<proxyUserId>_<COUNTRY[-STATE[-CITY]]>[~z<ZIP>][~a<ASN>]_<durationMinutes>[h]_<TOKEN8>`,
 * where a duration of 0 is a rotating line (a new exit per connection) and 1 to 10080 a sticky
 * one; `h` after a sticky duration asks for a hard session (keep the exit or fail, never switch).
 * `~z` (postal code) and `~a` (ASN) narrow the location further, for the upstreams that carry them.
 * The web generator builds them and the gateway parses them, so both use this one module.
 */
export const PROXY_USER_ID_RE = /^[a-z0-9]{6,24}$/;
export const LOCATION_CODE_RE = /^[A-Z0-9]{1,16}$/;
export const SESSION_TOKEN_RE = /^[A-Z0-9]{8}$/;
/** A ZIP or postal code as a line carries it: letters and digits, 3 to 10 (no spaces or hyphens). */
export const ZIP_RE = /^[A-Z0-9]{3,10}$/;
/** An autonomous system number, digits only (32 bits at most). */
export const ASN_RE = /^[1-9][0-9]{0,9}$/;
const MAX_ASN = 4294967295;
/** Is this a valid ASN (digits, 1 to 4294967295)? */
export const isAsn = (s: string): boolean => ASN_RE.test(s) && Number(s) <= MAX_ASN;
const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export interface ProxyLocation {
  country: string;
  state?: string | undefined;
  city?: string | undefined;
  /** Postal code (`~z`): only upstreams whose templates use {zip} carry it. */
  zip?: string | undefined;
  /** Autonomous system number (`~a`): only upstreams whose templates use {asn} carry it. */
  asn?: string | undefined;
}

export interface ProxyUsernameParts {
  proxyUserId: string;
  location: ProxyLocation;
  durationMinutes: number;
  /** A hard sticky line (`<minutes>h`): the exit is kept or the connection fails. */
  hard?: boolean | undefined;
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

/** The location part of a username: the place, then its `~z` and `~a` modifiers. */
export function lineLocationString(loc: ProxyLocation): string {
  return locationString(loc) + (loc.zip ? `~z${loc.zip}` : '') + (loc.asn ? `~a${loc.asn}` : '');
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
  const duration = `${parts.durationMinutes}${parts.hard ? 'h' : ''}`;
  return [parts.proxyUserId, lineLocationString(parts.location), duration, token].join('_');
}

export function parseProxyUsername(username: string): ParseResult {
  if (username.length > 128) return { ok: false, reason: 'username too long' };
  const fields = username.split('_');
  if (fields.length !== 4) {
    return { ok: false, reason: 'username must be <proxy user id>_<COUNTRY[-STATE[-CITY]]>_<minutes>_<TOKEN8>' };
  }
  const [proxyUserId, locPart, durationPart, token] = fields as [string, string, string, string];
  if (!PROXY_USER_ID_RE.test(proxyUserId)) return { ok: false, reason: 'invalid proxy user id' };
  const [loc = '', ...modifiers] = locPart.split('~');
  const targeting: { zip?: string; asn?: string } = {};
  for (const m of modifiers) {
    const value = m.slice(1);
    if (m[0] === 'z' && targeting.zip === undefined) {
      if (!ZIP_RE.test(value.toUpperCase())) return { ok: false, reason: 'invalid ZIP: 3 to 10 letters and digits after ~z' };
      targeting.zip = value.toUpperCase();
    } else if (m[0] === 'a' && targeting.asn === undefined) {
      if (!isAsn(value)) return { ok: false, reason: 'invalid ASN: digits after ~a' };
      targeting.asn = value;
    } else {
      return { ok: false, reason: 'invalid location modifier: ~z<ZIP> and ~a<ASN>, each at most once' };
    }
  }
  const codes = loc.split('-');
  if (codes.length < 1 || codes.length > 3 || !codes.every((c) => LOCATION_CODE_RE.test(c))) {
    return { ok: false, reason: 'invalid location: expected COUNTRY[-STATE[-CITY]] in uppercase letters and digits' };
  }
  const hard = durationPart.endsWith('h');
  const minutes = hard ? durationPart.slice(0, -1) : durationPart;
  if (!/^\d{1,5}$/.test(minutes)) return { ok: false, reason: 'invalid duration: whole minutes expected' };
  const durationMinutes = Number(minutes);
  if (durationMinutes !== ROTATING_DURATION_MINUTES && (durationMinutes < MIN_DURATION_MINUTES || durationMinutes > MAX_DURATION_MINUTES)) {
    return { ok: false, reason: `invalid duration: 0 (rotating) or ${MIN_DURATION_MINUTES} to ${MAX_DURATION_MINUTES} minutes` };
  }
  if (hard && durationMinutes === ROTATING_DURATION_MINUTES) return { ok: false, reason: 'invalid duration: h (hard sticky) needs a sticky duration, not 0' };
  if (!SESSION_TOKEN_RE.test(token)) return { ok: false, reason: 'invalid session token: 8 characters A-Z0-9' };
  const [country, state, city] = codes as [string, string | undefined, string | undefined];
  // Usernames without modifiers parse to exactly what they always did.
  const location: ProxyLocation = { country, state, city, ...targeting };
  return { ok: true, value: { proxyUserId, location, durationMinutes, token, ...(hard && { hard: true }) } };
}
