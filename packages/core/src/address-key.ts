import ipaddr from 'ipaddr.js';

/**
 * The key one client is counted under in a per-address limit: an IPv4 address (an IPv4-mapped IPv6
 * one too), or the /64 of an IPv6 one, which is what one customer line holds (2^64 addresses that
 * would otherwise each get their own allowance).
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  try {
    const ip = ipaddr.process(address);
    if (ip.kind() === 'ipv4') return ip.toString();
    return `${(ip as ipaddr.IPv6).parts
      .slice(0, 4)
      .map((p) => p.toString(16))
      .join(':')}::/64`;
  } catch {
    return address;
  }
}

/** Ranges that name no customer's line: our own proxies, private networks, the host itself. */
const NOT_A_CUSTOMER_NETWORK = new Set(['loopback', 'private', 'linkLocal', 'uniqueLocal', 'unspecified', 'carrierGradeNat']);

/**
 * The network a client address belongs to, as one household or office holds it: an IPv4 /24 or an
 * IPv6 /64. Null for an address that is no customer's (loopback, private, link-local): behind a
 * proxy the server does not trust, every client would share it.
 */
export function networkKey(address: string | undefined): string | null {
  if (!address) return null;
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address);
  } catch {
    return null;
  }
  if (NOT_A_CUSTOMER_NETWORK.has(ip.range())) return null;
  if (ip.kind() === 'ipv4') return `${(ip as ipaddr.IPv4).octets.slice(0, 3).join('.')}.0/24`;
  return addressKey(address);
}
