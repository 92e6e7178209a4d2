/**
 * A lease's usage split by where it went (the username's location) and how it came in (plain
 * HTTP, CONNECT, SOCKS5), reported beside the lease's totals for the customer's usage history.
 * Billing does not depend on it: the totals are what is charged.
 */
import type { GatewayUsagePart, ProxyLocation } from '@proxyhub/core';

export type TunnelProtocol = GatewayUsagePart['protocol'];

/** One tunnel's dimensions, built once per tunnel; `key` identifies them in a lease's map. */
export interface UsageTag {
  readonly key: string;
  readonly protocol: TunnelProtocol;
  readonly country: string;
  readonly state: string;
  readonly city: string;
  /** The pool upstream that carries the tunnel; '' for the default upstream or direct egress. */
  readonly upstreamId: string;
}

export function usageTag(protocol: TunnelProtocol, location: ProxyLocation | undefined, upstreamId = ''): UsageTag {
  const country = location?.country ?? '';
  const state = location?.state ?? '';
  const city = location?.city ?? '';
  return { key: `${protocol}|${country}|${state}|${city}|${upstreamId}`, protocol, country, state, city, upstreamId };
}

export class PartUsage {
  up = 0;
  down = 0;
  sessions = 0;
  constructor(readonly tag: UsageTag) {}
}

export type Parts = Map<string, PartUsage>;
/** Counts of each part at the time a report was built, subtracted once it is acknowledged. */
export type PartsSnapshot = Array<[PartUsage, number, number, number]>;

export function partOf(parts: Parts, tag: UsageTag): PartUsage {
  let p = parts.get(tag.key);
  if (!p) {
    p = new PartUsage(tag);
    parts.set(tag.key, p);
  }
  return p;
}

export function snapshotParts(parts: Parts | null): PartsSnapshot {
  if (!parts) return [];
  const out: PartsSnapshot = [];
  for (const p of parts.values()) if (p.up || p.down || p.sessions) out.push([p, p.up, p.down, p.sessions]);
  return out;
}

export function reportedParts(snapshot: PartsSnapshot): GatewayUsagePart[] | undefined {
  if (!snapshot.length) return undefined;
  return snapshot.map(([p, up, down, sessions]) => ({
    protocol: p.tag.protocol,
    country: p.tag.country,
    state: p.tag.state,
    city: p.tag.city,
    upstreamId: p.tag.upstreamId,
    bytesUp: up,
    bytesDown: down,
    sessions,
  }));
}

/** After the report was acknowledged: what it carried is no longer owed; empty parts are forgotten. */
export function acknowledgeParts(parts: Parts | null, snapshot: PartsSnapshot): void {
  if (!parts) return;
  for (const [p, up, down, sessions] of snapshot) {
    p.up -= up;
    p.down -= down;
    p.sessions -= sessions;
    if (!p.up && !p.down && !p.sessions) parts.delete(p.tag.key);
  }
}
