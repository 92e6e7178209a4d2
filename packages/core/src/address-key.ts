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
