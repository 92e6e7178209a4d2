/**
 * TRUST_PROXY: which hops in front of the server may say who the client is. Every proxy appends the
 * address it received from to X-Forwarded-For, so only entries added by a trusted proxy are true;
 * the client address is the right-most entry a trusted proxy did not add (whatever a client writes
 * on the left is its own text). Fastify's `trustProxy` (proxy-addr) does this for a list of proxy
 * addresses; `true` believes the left-most entry, and Fastify 5 reads a number as "trust no hop" (it
 * cannot check the peer), so a hop count is given as proxy-addr's trust function `(addr, i) => i < n`.
 * A hop count believes whoever connects directly: the server must be reachable only through the
 * proxies (a list needs no such promise).
 */
import { isIP } from 'node:net';
import { z } from 'zod';

/** A hop count (`1`: the socket's peer is the one proxy, the last entry is the client), or proxy addresses/CIDRs. */
export type TrustProxy = number | string[];

/** proxy-addr's names for ranges: loopback, link-local and unique-local (private) addresses. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function validProxyEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Empty, `0` or `false`: no proxy, the socket's peer is the client. A number: that many proxies
 * (`true` is read as `1`, its old meaning behind one proxy). Otherwise a comma-separated list of
 * proxy addresses or CIDRs.
 */
export const trustProxyEnv = z
  .string()
  .optional()
  .transform((raw, ctx): TrustProxy | undefined => {
    const value = raw?.trim() ?? '';
    if (value === '' || value === '0' || value === 'false') return undefined;
    if (value === 'true') return 1;
    if (/^\d+$/.test(value)) return Number(value);
    const entries = value
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    const bad = entries.find((e) => !validProxyEntry(e));
    if (bad !== undefined || entries.length === 0) {
      ctx.addIssue({ code: 'custom', message: `must be a hop count or a comma-separated list of proxy addresses or CIDRs (not "${bad ?? value}")` });
      return z.NEVER;
    }
    return entries;
  });

/** What Fastify is given: `true` (tests' and old callers' shorthand) means one hop, never "trust everything". */
export function fastifyTrustProxy(trust: TrustProxy | boolean | undefined): ((address: string, hop: number) => boolean) | string[] | false {
  const hops = trust === true ? 1 : trust;
  if (hops === false || hops === undefined || hops === 0) return false;
  if (typeof hops === 'number') return (_address, hop) => hop < hops;
  return hops;
}
