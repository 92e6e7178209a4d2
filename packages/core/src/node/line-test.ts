/**
 * The customer's "Test" of a proxy line (POST /api/proxy-test) goes through our gateway exactly as
 * their client would, with one header more: a signature made with the fleet's internal key over
 * the username and the time. A gateway that checks it relays that one tunnel unbilled, and without
 * the owner's IP allow-list (the connection comes from the server, not from the customer).
 * Protects against free traffic: only the server and the gateways hold the key, and a signature
 * names one username and holds for LINE_TEST_VALID_MS, so a copied header buys nothing else.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const LINE_TEST_HEADER = 'X-ProxyHub-Line-Test';
/** How long a signature holds (clocks of the server and a gateway may differ a little). */
export const LINE_TEST_VALID_MS = 60_000;

const SIGNATURE_RE = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

function mac(key: string, username: string, atMs: number): string {
  return createHmac('sha256', key).update(`proxyhub line test\0${username}\0${atMs}`).digest('base64url');
}

/** The header's value for a test of `username` now. */
export function signLineTest(key: string, username: string, nowMs = Date.now()): string {
  return `${nowMs}.${mac(key, username, nowMs)}`;
}

/** True when `value` was signed with `key` for this username within LINE_TEST_VALID_MS. */
export function lineTestSigned(key: string, username: string, value: string, nowMs = Date.now()): boolean {
  const m = SIGNATURE_RE.exec(value);
  if (!key || !m) return false;
  const atMs = Number(m[1]);
  if (Math.abs(nowMs - atMs) > LINE_TEST_VALID_MS) return false;
  const want = Buffer.from(mac(key, username, atMs));
  const got = Buffer.from(m[2]!);
  return want.length === got.length && timingSafeEqual(want, got);
}
