/**
 * Targets as clients spell them. A host written only in numbers is an IPv4 address however it is
 * written: resolvers (inet_aton) and URL parsers read `127.1`, `2130706433`, `0x7f000001`,
 * `0x7f.0.0.1`, `0177.0.0.1` and `127.000.000.001` all as 127.0.0.1. A rule about addresses
 * (blockRawIp, the private-address rule, an upstream that resolves at its exit) must see that
 * address, not a "name" that slips past it.
 */
import ipaddr from 'ipaddr.js';

/** The one-line answer (HTTP 400) to a target host that is no host. */
export const INVALID_TARGET_HOST_MESSAGE = 'Bad request: invalid target host';

/** Decimal, octal (leading 0) or hex (`0x`) digits: a part of a numeric IPv4 spelling. */
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/i;

/**
 * The dotted quad a host made only of numeric labels names (one to four parts, each decimal, octal
 * or hex, the last filling the remaining bytes, as inet_aton and the URL standard read them); null
 * when such a host names no address (`256.0.0.1`, `1.2.3.4.5`, `08.0.0.1`); undefined for any other
 * host (a name, an IPv6 address).
 */
export function numericIPv4(host: string): string | null | undefined {
  const h = host.endsWith('.') ? host.slice(0, -1) : host;
  if (!h || !h.split('.').every((label) => NUMERIC_LABEL.test(label))) return undefined;
  try {
    return ipaddr.IPv4.parse(h).toString();
  } catch {
    return null;
  }
}
