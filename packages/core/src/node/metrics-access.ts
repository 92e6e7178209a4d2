/**
 * Who may read a process's metrics and readiness details (server and gateway alike): anyone on
 * the same machine (loopback), anyone else only with the internal key. Metrics carry business
 * figures (ledger totals, traffic), so a public address must not read them.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** 127.0.0.0/8, ::1 and their IPv4-mapped IPv6 forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** `Authorization: Bearer <key>`, compared in constant time (digests, so lengths leak nothing). */
export function bearerMatches(authorization: string | undefined, key: string): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  return m !== null && key.length > 0 && timingSafeEqual(digest(m[1]!), digest(key));
}

export type MetricsAccess = 'allowed' | 'unauthenticated' | 'forbidden';

/**
 * `peer` is the socket's address; `client` the address the request is from after trusted proxies
 * (the same as `peer` unless the process trusts a proxy's X-Forwarded-For). Both must be loopback
 * for keyless access, so a forwarded header can never make a remote peer look local.
 */
export function metricsAccess(req: { peer: string | undefined; client: string | undefined; authorization: string | undefined }, key: string): MetricsAccess {
  if (isLoopbackAddress(req.peer) && isLoopbackAddress(req.client)) return 'allowed';
  if (bearerMatches(req.authorization, key)) return 'allowed';
  return req.authorization ? 'forbidden' : 'unauthenticated';
}
