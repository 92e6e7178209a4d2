/**
 * Upstream pools as the gateway uses them: the admin's list (polled from the server), the order in
 * which to try them for a tunnel, and their health. A tunnel goes to an enabled pool serving its
 * country, picked by weight; its sticky session's pool first while that one is up. A pool that
 * fails `failuresToMarkDown` times in a row is down: skipped until its backoff (doubling from
 * `backoffMinMs` to `backoffMaxMs`) ends, then tried again; one success makes it up again.
 */
import type { Backend } from './backend';
import type { Logger } from './log';

export interface Upstream {
  /** upstreams.id; '' for the default upstream (GATEWAY_UPSTREAM_URL). */
  id: string;
  protocol: 'http' | 'socks5';
  host: string;
  port: number;
  usernameTemplate: string;
  password: string;
  /** Upper-case country codes served; null: all. */
  countries: string[] | null;
  weight: number;
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
  refreshMs: 15_000,
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
   * The pools to try for a tunnel to `country`, in order: null when there are none at all (the
   * default upstream or direct egress then), empty when none serves the country. Down pools come
   * last (soonest back first): better a retry than an error.
   */
  route(country: string, stickyId: string | null, now = Date.now()): Upstream[] | null {
    if (!this.list.length) return null;
    const serving = this.list.filter((u) => u.countries === null || u.countries.includes(country));
    const up = serving.filter((u) => !this.isDown(u.id, now));
    const down = serving.filter((u) => this.isDown(u.id, now)).sort((a, b) => this.health.get(a.id)!.downUntil - this.health.get(b.id)!.downUntil);
    const order: Upstream[] = [];
    const sticky = stickyId ? up.find((u) => u.id === stickyId) : undefined;
    if (sticky) order.push(sticky);
    const rest = up.filter((u) => u !== sticky);
    // Weighted order without replacement: each next pick in proportion to the weights left.
    while (rest.length) {
      let total = 0;
      for (const u of rest) total += u.weight;
      let r = this.opts.random() * total;
      let i = 0;
      while (i < rest.length - 1 && r >= rest[i]!.weight) r -= rest[i++]!.weight;
      order.push(rest.splice(i, 1)[0]!);
    }
    return order.concat(down);
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
