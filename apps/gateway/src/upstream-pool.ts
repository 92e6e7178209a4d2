/**
 * Upstream pools as the gateway uses them: the admin's list (polled from the server), the order in
 * which to try them for a tunnel, and their health. A tunnel goes to an enabled pool serving its
 * country, preferring pools whose templates carry its state or city and only to pools whose
 * templates carry its ZIP, ASN or hard session when it asks for one; a sticky line to the pool its
 * session id hashes to (the same on every gateway) while that one is up (a hard one to that pool
 * only, up or not: its exit is kept or it fails), a rotating line to one picked by weight. A pool that
 * fails `failuresToMarkDown` times in a row is down: skipped until its backoff (doubling from
 * `backoffMinMs` to `backoffMaxMs`) ends, then tried again; one success makes it up again.
 */
import { createHash } from 'node:crypto';
import { lineNeeds, upstreamCarries, upstreamUses, type ProxyLocation } from '@proxyhub/core';
import type { Backend } from './backend';
import type { Logger } from './log';

export interface Upstream {
  /** upstreams.id; '' for the default upstream (GATEWAY_UPSTREAM_URL). */
  id: string;
  protocol: 'http' | 'socks5';
  host: string;
  port: number;
  usernameTemplate: string;
  /** The password's template, when the upstream has one (its targeting may live there). */
  passwordTemplate?: string | undefined;
  password: string;
  /** Upper-case country codes served; null: all. */
  countries: string[] | null;
  weight: number;
  /** false: its provider account is dry (the server's balance watch); it gets no new connection. */
  available?: boolean | undefined;
  /** The provider's longest sticky session: a longer line is sent with this (core's rendering). */
  maxSessionMinutes?: number | null | undefined;
}

export interface UpstreamPoolOptions {
  failuresToMarkDown: number;
  backoffMinMs: number;
  backoffMaxMs: number;
  /** How often the list is read from the server (changes reach the gateway within this). */
  refreshMs: number;
  random: () => number;
}

export const DEFAULT_UPSTREAM_POOL_OPTIONS: UpstreamPoolOptions = {
  failuresToMarkDown: 3,
  backoffMinMs: 1000,
  backoffMaxMs: 60_000,
  refreshMs: 5_000,
  random: Math.random,
};

interface Health {
  /** Failures in a row. */
  failures: number;
  /** Times marked down in a row: the backoff doubles with each. */
  downs: number;
  downUntil: number;
}

export class UpstreamPool {
  private list: Upstream[] = [];
  private readonly health = new Map<string, Health>();
  private timer: NodeJS.Timeout | null = null;
  /** Upstream connect failures and timeouts since start (the default upstream's too). */
  errors = 0;
  readonly opts: UpstreamPoolOptions;

  constructor(opts: Partial<UpstreamPoolOptions> = {}) {
    this.opts = { ...DEFAULT_UPSTREAM_POOL_OPTIONS, ...opts };
  }

  get upstreams(): readonly Upstream[] {
    return this.list;
  }

  set(list: Upstream[]): void {
    this.list = list;
    const ids = new Set(list.map((u) => u.id));
    for (const id of this.health.keys()) if (!ids.has(id)) this.health.delete(id);
  }

  isDown(id: string, now = Date.now()): boolean {
    const h = this.health.get(id);
    return h !== undefined && h.downUntil > now;
  }

  /**
   * The pools to try for a tunnel to `location`, in order: null when there are none at all (the
   * default upstream or direct egress then), empty when none serves the country. Pools whose
   * templates can carry the line's targeting come first (for a city, those using {city}, then
   * {state}; for a state, those using {state}). Within that, a sticky line (`sid`) ranks the pools
   * by rendezvous hashing on its sid, weighted: every gateway picks the same one while it is up and
   * the next one while it is down; a rotating line (`sid` '') draws by weight. Down pools come last
   * (soonest back first): better a retry than an error. Only pools that carry the line's ZIP, ASN
   * and hard session (`hard`) are listed; a hard line gets its one pool, down or not.
   */
  route(location: ProxyLocation, sid = '', now = Date.now(), hard = false): Upstream[] | null {
    if (!this.list.length) return null;
    const line = { location, hard };
    const serving = this.serving(location.country).filter((u) => u.available !== false && upstreamCarries(u, line));
    if (hard && sid) return rendezvousOrder(targetingTiers(serving, location)[0]!, sid).slice(0, 1);
    const up = serving.filter((u) => !this.isDown(u.id, now));
    const down = serving.filter((u) => this.isDown(u.id, now)).sort((a, b) => this.health.get(a.id)!.downUntil - this.health.get(b.id)!.downUntil);
    const order: Upstream[] = [];
    for (const tier of targetingTiers(up, location)) order.push(...(sid ? rendezvousOrder(tier, sid) : this.weightedOrder(tier)));
    return order.concat(down);
  }

  /** The pools serving a country, dry ones included. */
  private serving(country: string): Upstream[] {
    return this.list.filter((u) => u.countries === null || u.countries.includes(country));
  }

  /**
   * What the line asks for that no pool serving its country can carry ('ZIP', 'ASN', 'hard sticky'),
   * or null. `fallback` is the default upstream, tried after the pools. No pool and no fallback:
   * direct egress, which ignores the modifiers (as it does state and city) and never changes exit.
   */
  notCarried(location: ProxyLocation, hard: boolean, fallback: Upstream | null): string | null {
    const candidates = this.list.length ? this.serving(location.country) : [];
    if (fallback) candidates.push(fallback);
    const line = { location, hard };
    if (!candidates.length || candidates.some((u) => upstreamCarries(u, line))) return null;
    const needs = lineNeeds(line);
    // One nobody carries; else each is carried somewhere, but not together ('ZIP and ASN').
    return needs.find((need) => !candidates.some((u) => upstreamUses(u, need.placeholder)))?.label ?? needs.map((n) => n.label).join(' and ');
  }

  /** Pools serve the country (and carry the line's ZIP, ASN, hard session), and every one of them is dry: its lines have no exit left. */
  onlyDryServe(location: ProxyLocation, hard = false): boolean {
    const serving = this.serving(location.country).filter((u) => upstreamCarries(u, { location, hard }));
    return serving.length > 0 && serving.every((u) => u.available === false);
  }

  /** Weighted order without replacement: each next pick in proportion to the weights left. */
  private weightedOrder(list: readonly Upstream[]): Upstream[] {
    const rest = [...list];
    const order: Upstream[] = [];
    while (rest.length) {
      let total = 0;
      for (const u of rest) total += u.weight;
      let r = this.opts.random() * total;
      let i = 0;
      while (i < rest.length - 1 && r >= rest[i]!.weight) r -= rest[i++]!.weight;
      order.push(rest.splice(i, 1)[0]!);
    }
    return order;
  }

  succeeded(id: string): void {
    this.health.delete(id);
  }

  failed(id: string, now = Date.now()): void {
    this.errors += 1;
    if (!id) return;
    const h = this.health.get(id) ?? { failures: 0, downs: 0, downUntil: 0 };
    h.failures += 1;
    if (h.failures >= this.opts.failuresToMarkDown) {
      h.downUntil = now + Math.min(this.opts.backoffMinMs * 2 ** h.downs, this.opts.backoffMaxMs);
      h.downs += 1;
      // One failure after the backoff marks it down again (for twice as long).
      h.failures = this.opts.failuresToMarkDown - 1;
    }
    this.health.set(id, h);
  }

  /** Reads the list from the server now; the previous one stays when the server does not answer. */
  async refresh(backend: Backend): Promise<void> {
    const r = await backend.upstreams();
    this.set(r.upstreams.map((u) => ({ ...u, countries: u.countries ?? null })));
  }

  /** Polls the server every refreshMs. */
  start(backend: Backend, logger: Logger): void {
    if (this.timer) return;
    let failing = false;
    this.timer = setInterval(() => {
      this.refresh(backend).then(
        () => {
          failing = false;
        },
        (err: unknown) => {
          if (!failing) logger.warn({ err }, 'could not read the upstream list; keeping the last one');
          failing = true;
        },
      );
    }, this.opts.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** Whether a username or password template uses `{name` as a placeholder (`{city}`, `{city|...}`). */
export const templateUses = (u: Pick<Upstream, 'usernameTemplate' | 'passwordTemplate'>, name: 'state' | 'city'): boolean => upstreamUses(u, name);

/** The pools split by how well their templates carry the line's targeting, best first (none empty). */
function targetingTiers(list: readonly Upstream[], location: ProxyLocation): Upstream[][] {
  if (!location.state && !location.city) return [list as Upstream[]];
  const rank = (u: Upstream) => (location.city && templateUses(u, 'city') ? 0 : templateUses(u, 'state') ? 1 : 2);
  const tiers: Upstream[][] = [[], [], []];
  for (const u of list) tiers[rank(u)]!.push(u);
  return tiers.filter((t) => t.length);
}

/** A uniform number in (0, 1) from (sid, upstream id): the same on every gateway. */
function unitHash(sid: string, id: string): number {
  const n = createHash('sha256').update(`${sid}\n${id}`).digest().readUIntBE(0, 6);
  return (n + 0.5) / 2 ** 48;
}

/** Weighted rendezvous (highest random weight) order for `sid`: score weight / -ln(h), highest first. */
export function rendezvousOrder(list: readonly Upstream[], sid: string): Upstream[] {
  return list
    .map((u) => ({ u, score: Math.max(u.weight, 0) / -Math.log(unitHash(sid, u.id)) }))
    .sort((a, b) => b.score - a.score || (a.u.id < b.u.id ? -1 : 1))
    .map((x) => x.u);
}
