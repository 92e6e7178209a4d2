import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { MAX_DURATION_MINUTES, MIN_DURATION_MINUTES, ROTATING_DURATION_MINUTES } from '../constants';
import { LOCATION_CODE_RE, PROXY_USER_ID_RE, type ProxyLocation } from '../proxy-username';

/**
 * A user's IP allow-list: the source addresses their proxy credentials may be used from, and
 * optionally password-less access from those addresses. Shared by the form, the procedure and the
 * gateway, so "listed" means the same everywhere.
 */
export const MAX_ALLOWLIST_ENTRIES = 50;
/** A password-less entry is one address or a narrow range: at most 256 IPv4 addresses or a /56 of IPv6. */
export const PASSWORDLESS_MIN_PREFIX = { ipv4: 24, ipv6: 56 } as const;
/** The widest range the list takes: a shorter prefix is nearly everyone, which is no allow-list at all. */
export const ALLOWLIST_MIN_PREFIX = { ipv4: 8, ipv6: 32 } as const;
/** The longest entry written out: an IPv4-mapped IPv6 address with a prefix. */
const MAX_ENTRY_CHARS = 64;

export interface AllowlistNetwork {
  kind: 'ipv4' | 'ipv6';
  /** The network address, canonical (`10.0.0.0`, `2001:db8::`). */
  address: string;
  prefix: number;
  /** What is stored and shown: the address alone for a single host, else `address/prefix`. */
  entry: string;
  /** Always `address/prefix` (the database's cidr value). */
  cidr: string;
  /** The address given had host bits set (`192.168.1.7/16`): what is saved is another text than what was typed. */
  hostBitsSet: boolean;
}

function networkOf(addr: ipaddr.IPv4 | ipaddr.IPv6, prefix: number): AllowlistNetwork {
  // An IPv4-mapped IPv6 range is the IPv4 range: clients on a dual-stack socket arrive as ::ffff:a.b.c.d.
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    return networkOf((addr as ipaddr.IPv6).toIPv4Address(), prefix - 96);
  }
  const kind = addr.kind();
  const bits = kind === 'ipv4' ? 32 : 128;
  const cidr = `${addr.toString()}/${prefix}`;
  const network = kind === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(cidr) : ipaddr.IPv6.networkAddressFromCIDR(cidr);
  const address = network.toString();
  return {
    kind,
    address,
    prefix,
    entry: prefix === bits ? address : `${address}/${prefix}`,
    cidr: `${address}/${prefix}`,
    hostBitsSet: address !== addr.toString(),
  };
}

/**
 * An IPv4 address (dotted decimal only: no octal, hex or short forms), an IPv6 address (no zone) or
 * either with a `/prefix`; host bits of a range are cleared (`10.0.0.7/24` is `10.0.0.0/24`).
 * Null when it is none of these.
 */
export function parseAllowlistEntry(text: string): AllowlistNetwork | null {
  const s = text.trim();
  if (!s || s.length > MAX_ENTRY_CHARS || s.includes('%')) return null;
  const slash = s.indexOf('/');
  const host = slash < 0 ? s : s.slice(0, slash);
  const prefixText = slash < 0 ? null : s.slice(slash + 1);
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) addr = ipaddr.IPv4.parse(host);
  else if (ipaddr.IPv6.isValid(host)) addr = ipaddr.IPv6.parse(host);
  else return null;
  const bits = addr.kind() === 'ipv4' ? 32 : 128;
  if (prefixText !== null && !/^(0|[1-9]\d{0,2})$/.test(prefixText)) return null;
  const prefix = prefixText === null ? bits : Number(prefixText);
  if (prefix > bits) return null;
  return networkOf(addr, prefix);
}

/** Whether an entry is narrow enough to be password-less. */
export function passwordlessEligible(n: AllowlistNetwork): boolean {
  return n.prefix >= PASSWORDLESS_MIN_PREFIX[n.kind];
}

/** Whether an entry is narrow enough to be listed at all. */
export function allowlistWidthOk(n: AllowlistNetwork): boolean {
  return n.prefix >= ALLOWLIST_MIN_PREFIX[n.kind];
}

/** The first entry the list refuses, with why: not an address or range, or a range too wide. */
export function allowlistEntryProblem(entry: string): string | null {
  const n = parseAllowlistEntry(entry);
  if (!n) return invalidAllowlistEntryMessage(entry);
  if (!allowlistWidthOk(n)) return tooWideAllowlistEntryMessage(entry);
  return null;
}

/** "192.168.1.7/16 was saved as 192.168.0.0/16", or null when the entry was saved as written. */
export function allowlistSavedAsNote(entry: string): string | null {
  const n = parseAllowlistEntry(entry);
  return n?.hostBitsSet ? `${entry.trim()} was saved as ${n.entry}` : null;
}

export const invalidAllowlistEntryMessage = (entry: string) => `Invalid IP address or CIDR range: "${entry.trim().slice(0, MAX_ENTRY_CHARS)}"`;
export const tooWideForPasswordlessMessage = (entry: string) =>
  `Password-less access needs single addresses or ranges no wider than /${PASSWORDLESS_MIN_PREFIX.ipv4} (IPv4) or /${PASSWORDLESS_MIN_PREFIX.ipv6} (IPv6): ${entry} is wider`;
export const tooWideAllowlistEntryMessage = (entry: string) =>
  `Range too wide: "${entry.trim().slice(0, MAX_ENTRY_CHARS)}". The allow-list takes ranges of at most /${ALLOWLIST_MIN_PREFIX.ipv4} (IPv4) or /${ALLOWLIST_MIN_PREFIX.ipv6} (IPv6)`;
export const TOO_MANY_ALLOWLIST_ENTRIES = `At most ${MAX_ALLOWLIST_ENTRIES} entries in the IP allow-list`;

/**
 * Entry ports (GATEWAY_ENTRY_PORTS): a range the gateway also listens on, where a password-less
 * address's connection takes the location, session and proxy account its owner gave that port.
 */
export interface EntryPortRange {
  from: number;
  to: number;
}
export const DEFAULT_GATEWAY_ENTRY_PORTS = '20000-20099';
/** One listener per port: a wider range would spend the gateway's open files on idle sockets. */
export const MAX_ENTRY_PORTS = 100;

/** `20000-20099` (or one port); null unless a range of at most MAX_ENTRY_PORTS ports within 1-65535. */
export function parseEntryPortRange(text: string): EntryPortRange | null {
  const m = /^\s*(\d{1,5})\s*(?:-\s*(\d{1,5})\s*)?$/.exec(text);
  if (!m) return null;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (from < 1 || to > 65535 || to < from || to - from + 1 > MAX_ENTRY_PORTS) return null;
  return { from, to };
}

export const entryPortRangeText = (r: EntryPortRange) => (r.from === r.to ? String(r.from) : `${r.from}-${r.to}`);
export const entryPortOutsideMessage = (port: number, r: EntryPortRange) => `Port ${port} is not an entry port: the entry ports are ${entryPortRangeText(r)}`;

/** `FR`, `US-CA`, `US-CA-LOSANGELES` as a location; null when it is not of that form. */
export function parseLocationText(text: string): ProxyLocation | null {
  const codes = text.split('-');
  if (codes.length > 3 || !codes.every((c) => LOCATION_CODE_RE.test(c))) return null;
  const [country, state, city] = codes as [string, string | undefined, string | undefined];
  return { country, ...(state && { state }), ...(city && { city }) };
}

/** What a connection to one entry port from a password-less address gets. */
export const portProfileInput = z.object({
  port: z
    .number({ error: 'Port must be a whole number from 1 to 65535' })
    .int('Port must be a whole number from 1 to 65535')
    .min(1, 'Port must be a whole number from 1 to 65535')
    .max(65535, 'Port must be a whole number from 1 to 65535'),
  /** One of the user's proxy accounts, by the id the proxy-accounts API names it with (its proxy user id); omitted: their main account. */
  proxyAccountId: z
    .string({ error: 'Proxy account must be the id of one of your proxy accounts' })
    .regex(PROXY_USER_ID_RE, 'Proxy account must be the id of one of your proxy accounts, as the proxy accounts page lists them')
    .optional(),
  location: z
    .string({ error: 'Location must be text such as FR or US-CA-LOSANGELES' })
    .trim()
    .toUpperCase()
    .refine((l) => parseLocationText(l) !== null, 'Location must be COUNTRY[-STATE[-CITY]] codes, such as FR or US-CA-LOSANGELES'),
  durationMinutes: z
    .number({ error: 'Session duration must be a whole number of minutes' })
    .int('Session duration must be a whole number of minutes')
    .refine(
      (d) => d === ROTATING_DURATION_MINUTES || (d >= MIN_DURATION_MINUTES && d <= MAX_DURATION_MINUTES),
      `Session duration must be 0 (rotating) or ${MIN_DURATION_MINUTES} to ${MAX_DURATION_MINUTES} minutes`,
    ),
});
export type PortProfileInput = z.infer<typeof portProfileInput>;
/** A port profile as stored and answered: the location as written in a username. */
export type PortProfile = PortProfileInput;

/** An entry with port profiles; a plain string is an entry without. */
export const allowlistEntryInput = z.union(
  [
    z.string({ error: 'Each entry must be text' }),
    z.object({
      entry: z.string({ error: 'Each entry must be text' }),
      ports: z
        .array(portProfileInput, { error: 'Ports must be a list of port profiles: port, proxy account, location and session duration' })
        .max(MAX_ENTRY_PORTS, `At most ${MAX_ENTRY_PORTS} ports per entry`)
        .superRefine((ports, ctx) => {
          const seen = new Set<number>();
          for (const p of ports) {
            if (seen.has(p.port)) return ctx.addIssue({ code: 'custom', message: `Port ${p.port} is listed twice for one entry` });
            seen.add(p.port);
          }
        }),
    }),
  ],
  { error: 'Each entry must be an IP address or CIDR range, alone or with its ports' },
);
export type AllowlistEntryInput = z.infer<typeof allowlistEntryInput>;

/** The address or range an entry names. */
export const entryText = (e: AllowlistEntryInput): string => (typeof e === 'string' ? e : e.entry);
/** The port profiles an entry carries (none for a plain string). */
export const entryPorts = (e: AllowlistEntryInput): PortProfile[] => (typeof e === 'string' ? [] : e.ports);

export const setIpAllowlistInput = z.object({
  entries: z
    .array(allowlistEntryInput, { error: 'The allow-list must be a list of IP addresses or CIDR ranges' })
    .max(MAX_ALLOWLIST_ENTRIES, TOO_MANY_ALLOWLIST_ENTRIES)
    .superRefine((entries, ctx) => {
      for (const e of entries) {
        const problem = allowlistEntryProblem(entryText(e));
        if (problem) return ctx.addIssue({ code: 'custom', message: problem });
      }
    }),
  /** Omitted: unchanged. */
  passwordless: z.boolean({ error: 'Password-less access must be true or false' }).optional(),
});
export type SetIpAllowlistInput = z.infer<typeof setIpAllowlistInput>;

/**
 * Matches a source address against a list of CIDRs (what the gateway gets from the server). An
 * IPv4-mapped IPv6 source is judged as its IPv4 address.
 */
export class AllowlistMatcher {
  private readonly ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

  constructor(cidrs: readonly string[]) {
    this.ranges = [];
    for (const c of cidrs) {
      const n = parseAllowlistEntry(c);
      if (n) this.ranges.push([ipaddr.parse(n.address), n.prefix]);
    }
  }

  get empty(): boolean {
    return this.ranges.length === 0;
  }

  /** An empty list admits every address; an unknown or unparsable address is admitted by none. */
  admits(address: string | undefined): boolean {
    if (this.ranges.length === 0) return true;
    if (!address || !ipaddr.isValid(address)) return false;
    const a = ipaddr.process(address);
    return this.ranges.some(([net, prefix]) => net.kind() === a.kind() && a.match(net, prefix));
  }
}
