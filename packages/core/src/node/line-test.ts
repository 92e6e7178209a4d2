/**
 * The customer's "Test" of a proxy line (POST /api/proxy-test) goes through our gateway exactly as
 * their client would, with one header more: a signature made with the fleet's internal key over
 * the username and the time. A gateway that checks it relays that one tunnel unbilled, and without
 * the owner's IP allow-list (the connection comes from the server, not from the customer).
 * Protects against free traffic: only the server and the gateways hold the key, and a signature
 * names one username and holds for LINE_TEST_VALID_MS, so a copied header buys nothing else.
 *
 * The quality prober's test (services/status) is a line test that also names the upstream pool it
 * measures (or none: the default route): the gateway sends it through that pool only, and takes no
 * lease for it (the prober's account has no wallet to lease from; nothing is spent either way).
 * The pool is under the signature, so a header cannot be re-pointed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const LINE_TEST_HEADER = 'X-ProxyHub-Line-Test';
/** How long a signature holds (clocks of the server and a gateway may differ a little). */
export const LINE_TEST_VALID_MS = 60_000;

/** `<ms>.<mac>`, or for a probe `<ms>.<mac>.<upstream id, or * for the default route>`. */
const SIGNATURE_RE = /^(\d{1,15})\.([A-Za-z0-9_-]{43})(?:\.([A-Za-z0-9-]{1,64}|\*))?$/;
const DEFAULT_ROUTE = '*';

/** A probe: the pool it measures, or null for the gateway's default route (the default upstream or direct egress). */
export interface LineProbe {
  upstreamId: string | null;
}

function mac(key: string, username: string, atMs: number, pin: string | undefined): string {
  const text = `proxyhub line test\0${username}\0${atMs}${pin === undefined ? '' : `\0probe\0${pin}`}`;
  return createHmac('sha256', key).update(text).digest('base64url');
}

/** The header's value for a test of `username` now; with `probe`, a quality probe through that pool. */
export function signLineTest(key: string, username: string, nowMs = Date.now(), probe?: LineProbe): string {
  const pin = probe ? (probe.upstreamId ?? DEFAULT_ROUTE) : undefined;
  return `${nowMs}.${mac(key, username, nowMs, pin)}${pin === undefined ? '' : `.${pin}`}`;
}

/**
 * What a header signed with `key` for this username within LINE_TEST_VALID_MS asks: a line test
 * (`probe` null) or a probe; null when the signature does not hold.
 */
export function lineTestOf(key: string, username: string, value: string, nowMs = Date.now()): { probe: LineProbe | null } | null {
  const m = SIGNATURE_RE.exec(value);
  if (!key || !m) return null;
  const atMs = Number(m[1]);
  if (Math.abs(nowMs - atMs) > LINE_TEST_VALID_MS) return null;
  const pin = m[3];
  const want = Buffer.from(mac(key, username, atMs, pin));
  const got = Buffer.from(m[2]!);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  return { probe: pin === undefined ? null : { upstreamId: pin === DEFAULT_ROUTE ? null : pin } };
}

/** True when `value` was signed with `key` for this username within LINE_TEST_VALID_MS. */
export function lineTestSigned(key: string, username: string, value: string, nowMs = Date.now()): boolean {
  return lineTestOf(key, username, value, nowMs) !== null;
}
