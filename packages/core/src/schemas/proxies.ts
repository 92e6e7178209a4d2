import { z } from 'zod';
import { GENERATOR_DURATION_OPTIONS, MAX_PROXY_COUNT, ROTATING_DURATION_MINUTES } from '../constants';
import { ASN_RE, isAsn, LOCATION_CODE_RE, parseProxyUsername, ZIP_RE } from '../proxy-username';

const code = z.string().regex(LOCATION_CODE_RE, 'Invalid location code');

/** A line's `~z` postal code, as the generator and the admin's upstream test take it. */
export const zipField = z
  .string()
  .trim()
  .toUpperCase()
  .refine((v) => ZIP_RE.test(v), 'ZIP / postal code: 3 to 10 letters and digits');
/** A line's `~a` ASN: digits only (AS7922 is written 7922). */
export const asnField = z
  .string()
  .trim()
  .refine((v) => ASN_RE.test(v) && isAsn(v), 'ASN: digits only, e.g. 7922');

export const generateProxiesForm = z
  .object({
    country: code,
    state: code.optional(),
    city: code.optional(),
    durationMinutes: z.number().refine((v) => (GENERATOR_DURATION_OPTIONS as readonly number[]).includes(v), 'Choose one of the listed durations'),
    /** `~z`: for the pools whose templates carry {zip} (the generator shows the field only then). */
    zip: zipField.optional(),
    /** `~a`: digits only (AS7922 is written 7922). */
    asn: asnField.optional(),
    /** `h`: keep the same IP or fail (a sticky line only). */
    hard: z.boolean().optional(),
    count: z
      .number({ error: 'Count is required' })
      .int('Count must be a whole number')
      .min(1, 'Count must be at least 1')
      .max(MAX_PROXY_COUNT, 'Count must be at most 10000'),
  })
  .refine((v) => !(v.hard && v.durationMinutes === ROTATING_DURATION_MINUTES), {
    path: ['hard'],
    message: 'Keep the same IP or fail needs a sticky duration: a rotating line gets a new IP on every connection',
  });

const PASTE_A_LINE = 'Paste a proxy line or username from the generator';

/**
 * The proxy username in a line of any list format (host:port:user:pass, user:pass@host:port, a
 * proxy URL...) or a bare username. A username holds no ':', '@' or '/', and only it holds '_'.
 */
export function usernameInLine(line: string): { ok: true; username: string } | { ok: false; message: string } {
  const candidates = line.split(/[:@/\s]+/).filter((part) => part.includes('_'));
  let reason = '';
  for (const part of candidates) {
    const parsed = parseProxyUsername(part);
    if (parsed.ok) return { ok: true, username: part };
    reason ||= parsed.reason;
  }
  return { ok: false, message: reason ? `Not a proxy username: ${reason}` : PASTE_A_LINE };
}

/** POST /api/proxy-test: one line (its username, or the whole line as copied) tried once through the gateway. */
export const proxyTestInput = z.object({
  username: z
    .string({ error: PASTE_A_LINE })
    .trim()
    .min(1, PASTE_A_LINE)
    .max(1000, 'The line is too long: paste one proxy line')
    .transform((line, ctx) => {
      const found = usernameInLine(line);
      if (found.ok) return found.username;
      ctx.addIssue({ code: 'custom', message: found.message });
      return z.NEVER;
    }),
});
export type ProxyTestInput = z.input<typeof proxyTestInput>;

/**
 * Who a failed line test blames: the check page (the line works, the page could not be reached or
 * failed), the gateway's refusal of the line, the upstream provider behind it, or the gateway not
 * answering at all.
 */
export type ProxyTestFailure = 'check_page' | 'refused' | 'upstream' | 'gateway';

/** What a line test answers: the exit as the check page saw it, or why not and whose fault it is. */
export type ProxyTestAnswer =
  { ok: true; latencyMs: number; exitIp: string | null; country: string | null } | { ok: false; failure: ProxyTestFailure; error: string };

/** POST /api/lines/rotate: a sticky line (its username, or the whole line as copied) gets a new exit now. */
export const rotateLineInput = proxyTestInput;
export type RotateLineInput = z.input<typeof rotateLineInput>;

/** A rotating line (duration 0) has nothing to rotate. */
export const ROTATING_LINE_MESSAGE = 'Rotating lines get a new IP on every connection';
/** Every gateway of the fleet takes a rotation within this (its credential cache's lifetime). */
export const ROTATION_REACHES_GATEWAYS_SECONDS = 5;

/** What the owner is told of a rotation (the web's "New IP" and the bot's /rotate). */
export function lineRotatedMessage(username: string): string {
  return `New IP for ${username}: every gateway gives it a new exit within ${ROTATION_REACHES_GATEWAYS_SECONDS} seconds, and its open connections are closed.`;
}

/** What a rotation answers: the line, how many times it has been rotated, and when. */
export interface RotateLineAnswer {
  username: string;
  rotation: number;
  rotatedAt: string;
}

/**
 * A line's rotations as the gateway gets them with its account's login answer: `count` is the
 * line's rotation counter, `at` (ms since the epoch) when it last moved. Lines are named by token.
 */
export interface LineRotation {
  token: string;
  count: number;
  at: number;
}
