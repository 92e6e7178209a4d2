/**
 * Metering: every byte relayed for an account is spent from a byte lease reserved from the server
 * beforehand, so nothing is forwarded that was not paid for and no database call happens per
 * chunk. Usage is reported per lease every few seconds in one batch per gateway, under a sequence
 * number the server applies once; a report that failed is resent unchanged until acknowledged.
 */
import type { UsageType } from '@proxyhub/core';
import type { Backend } from './backend';
import type { Logger } from './log';

export interface MeterOptions {
  gatewayId: string;
  backend: Backend;
  logger: Logger;
  /** First lease of an account; later leases grow (x2) while they run out fast and shrink when slow. */
  initialLeaseBytes: number;
  minLeaseBytes: number;
  maxLeaseBytes: number;
  reportIntervalMs: number;
  /** A report is sent at least this often while leases are held: the server's lease heartbeat. */
  heartbeatMs: number;
  /** An account without connections for this long gives its leases back. */
  idleReleaseMs: number;
  /** After the server said "empty", new connections are refused for this long without asking again. */
  emptyRetryMs: number;
}

export const DEFAULT_METER_OPTIONS = {
  initialLeaseBytes: 16 * 1024 * 1024,
  minLeaseBytes: 1024 * 1024,
  maxLeaseBytes: 1024 * 1024 * 1024,
  reportIntervalMs: 2000,
  heartbeatMs: 30_000,
  idleReleaseMs: 15_000,
  emptyRetryMs: 2000,
} satisfies Partial<MeterOptions>;

export type ReserveResult = 'granted' | 'empty' | 'disabled' | 'error';

export class Lease {
  used = 0;
  /** Not yet reported. */
  up = 0;
  down = 0;
  sessions = 0;
  constructor(
    readonly id: string,
    readonly granted: number,
  ) {}
}

/** Something the meter can close when its account runs dry or is revoked. */
export interface MeteredConnection {
  readonly credKey: string;
  close(reason: string): void;
}

export const UP = 0;
export const DOWN = 1;

export class Account {
  /** Leases being spent, oldest first. */
  readonly leases: Lease[] = [];
  /** Sum of what the leases have left. */
  available = 0;
  readonly conns = new Set<MeteredConnection>();
  lastActivity = Date.now();
  emptyAt = 0;
  disabled = false;
  pendingSessions = 0;
  private reserving: Promise<ReserveResult> | null = null;
  private leaseSize: number;
  private lastReserveAt = 0;

  constructor(
    readonly meter: Meter,
    readonly id: string,
    readonly usageType: UsageType,
  ) {
    this.leaseSize = meter.opts.initialLeaseBytes;
  }

  /** Spends n bytes the caller checked are available (available >= n). */
  spend(n: number, dir: number): void {
    this.available -= n;
    let lease = this.leases[0]!;
    let left = lease.granted - lease.used;
    if (n < left) {
      lease.used += n;
      if (dir === UP) lease.up += n;
      else lease.down += n;
    } else {
      // Crosses into the next lease(s): the used-up one is retired and reported with release.
      while (n > 0) {
        lease = this.leases[0]!;
        left = lease.granted - lease.used;
        const take = n < left ? n : left;
        lease.used += take;
        if (dir === UP) lease.up += take;
        else lease.down += take;
        n -= take;
        if (lease.used === lease.granted) this.meter.retire(this.leases.shift()!);
      }
    }
    // Double-buffered: the next lease is asked for while a whole one is still left, so a fast
    // tunnel never waits for the server.
    if (this.available < this.leaseSize && this.reserving === null && !this.recentlyEmpty()) void this.reserve();
  }

  get isReserving(): boolean {
    return this.reserving !== null;
  }

  /** One session is one authenticated connection (counted on the lease it starts on). */
  countSession(): void {
    const lease = this.leases[0];
    if (lease) lease.sessions += 1;
    else this.meter.orphanSessions(this);
    this.lastActivity = Date.now();
  }

  recentlyEmpty(): boolean {
    return this.emptyAt !== 0 && Date.now() - this.emptyAt < this.meter.opts.emptyRetryMs;
  }

  /** Reserves until n bytes are available; returns why not when the balance or the server says no. */
  async ensure(n: number): Promise<ReserveResult> {
    while (this.available < n) {
      const r = await this.reserve();
      if (r !== 'granted') return r;
    }
    return 'granted';
  }

  /** One lease request at a time per account; concurrent callers share it. */
  reserve(): Promise<ReserveResult> {
    if (this.disabled) return Promise.resolve('disabled');
    if (this.meter.isClosing) return Promise.resolve('error');
    if (this.recentlyEmpty()) return Promise.resolve('empty');
    if (!this.reserving) {
      const p = this.requestLease().finally(() => {
        this.reserving = null;
      });
      this.reserving = p;
      this.meter.track(p);
    }
    return this.reserving;
  }

  private async requestLease(): Promise<ReserveResult> {
    const { opts } = this.meter;
    const now = Date.now();
    if (this.lastReserveAt) {
      const since = now - this.lastReserveAt;
      if (since < 2000) this.leaseSize = Math.min(this.leaseSize * 2, opts.maxLeaseBytes);
      else if (since > 20_000) this.leaseSize = Math.max(this.leaseSize >> 1, opts.minLeaseBytes);
    }
    this.lastReserveAt = now;
    try {
      const r = await opts.backend.reserveLease({ gatewayId: opts.gatewayId, proxyAccountId: this.id, bytes: this.leaseSize });
      if (r.leaseId && r.grantedBytes > 0n) {
        const granted = Number(r.grantedBytes);
        const lease = new Lease(r.leaseId, granted);
        lease.sessions = this.pendingSessions;
        this.pendingSessions = 0;
        this.leases.push(lease);
        this.available += granted;
        this.emptyAt = 0;
        this.meter.ensureHeartbeat();
        return 'granted';
      }
      if (r.outcome === 'disabled' || r.outcome === 'unknown_account') {
        this.disabled = true;
        return 'disabled';
      }
      this.emptyAt = Date.now();
      return 'empty';
    } catch (err) {
      opts.logger.warn({ err, account: this.id }, 'lease reservation failed');
      return 'error';
    }
  }

  /** Closes every open connection of the account (balance empty, account disabled). */
  closeAll(reason: string): void {
    for (const c of [...this.conns]) c.close(reason);
  }
}

interface PendingReport {
  seq: number;
  items: Array<{ leaseId: string; bytesUp: number; bytesDown: number; sessions: number; release: boolean }>;
  snapshot: Array<[Lease, number, number, number]>;
  retired: Lease[];
}

export class Meter {
  readonly accounts = new Map<string, Account>();
  /** Leases taken out of use (used up, idle, shutdown), to be reported once more with release. */
  private retired: Lease[] = [];
  private seq = Date.now() * 1000;
  private pending: PendingReport | null = null;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastSent = 0;
  private closing = false;

  /** Lease requests on their way: shutdown waits for them, so no granted lease is left behind. */
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(readonly opts: MeterOptions) {}

  get isClosing(): boolean {
    return this.closing;
  }

  track(p: Promise<unknown>): void {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }

  start(): void {
    this.timer ??= setInterval(() => void this.tick(), this.opts.reportIntervalMs);
    this.timer.unref();
  }

  account(id: string, usageType: UsageType): Account {
    let a = this.accounts.get(id);
    if (!a) {
      a = new Account(this, id, usageType);
      this.accounts.set(id, a);
    }
    return a;
  }

  /** A session that started as its account's leases ran out: counted on the next lease. */
  orphanSessions(a: Account): void {
    a.pendingSessions += 1;
  }

  retire(lease: Lease): void {
    this.retired.push(lease);
  }

  /** Makes sure a heartbeat goes out (the report timer runs). */
  ensureHeartbeat(): void {
    if (!this.timer && !this.closing) this.start();
  }

  private async tick(): Promise<void> {
    const now = Date.now();
    let due = this.retired.length > 0 || this.pending !== null || now - this.lastSent >= this.opts.heartbeatMs;
    for (const a of this.accounts.values()) {
      if (due) break;
      if (a.conns.size === 0 && now - a.lastActivity >= this.opts.idleReleaseMs) due = true;
      else for (const l of a.leases) if (l.up || l.down || l.sessions) due = true;
    }
    if (due) await this.flush().catch(() => undefined);
  }

  /** Sends one report now (after any in flight) and waits for it. */
  flush(releaseAll = false): Promise<void> {
    const prev = this.running;
    const p = (async () => {
      if (prev) await prev;
      await this.send(releaseAll);
    })();
    // The chain of reports never rejects (a failure is the caller's, and the report is resent).
    const settled: Promise<void> = p.then(
      () => undefined,
      () => undefined,
    );
    this.running = settled;
    void settled.then(() => {
      if (this.running === settled) this.running = null;
    });
    return p;
  }

  private build(releaseAll: boolean): PendingReport {
    const now = Date.now();
    const items: PendingReport['items'] = [];
    const snapshot: PendingReport['snapshot'] = [];
    for (const [id, a] of this.accounts) {
      const idle = a.conns.size === 0 && now - a.lastActivity >= this.opts.idleReleaseMs;
      if (releaseAll || idle || a.disabled) {
        // Give the rest back: these leases are no longer spent from.
        this.retired.push(...a.leases.splice(0));
        a.available = 0;
        if (a.conns.size === 0 && !a.isReserving) this.accounts.delete(id);
        continue;
      }
      for (const l of a.leases) {
        if (!l.up && !l.down && !l.sessions) continue;
        items.push({ leaseId: l.id, bytesUp: l.up, bytesDown: l.down, sessions: l.sessions, release: false });
        snapshot.push([l, l.up, l.down, l.sessions]);
      }
    }
    const retired = this.retired;
    this.retired = [];
    for (const l of retired) {
      items.push({ leaseId: l.id, bytesUp: l.up, bytesDown: l.down, sessions: l.sessions, release: true });
      snapshot.push([l, l.up, l.down, l.sessions]);
    }
    this.seq += 1;
    return { seq: this.seq, items, snapshot, retired };
  }

  private async send(releaseAll: boolean): Promise<void> {
    // A report that was not acknowledged goes again, unchanged (same seq): the server applies it once.
    if (this.pending) {
      await this.deliver(this.pending);
      if (!releaseAll) return;
    }
    await this.deliver(this.build(releaseAll));
  }

  private async deliver(report: PendingReport): Promise<void> {
    this.pending = report;
    const { opts } = this;
    let res: { applied: boolean; dropped: string[] };
    try {
      res = await opts.backend.report({ gatewayId: opts.gatewayId, seq: report.seq, items: report.items });
    } catch (err) {
      opts.logger.warn({ err, seq: report.seq, items: report.items.length }, 'usage report failed; will resend');
      throw err;
    }
    this.pending = null;
    this.lastSent = Date.now();
    for (const [l, up, down, sessions] of report.snapshot) {
      l.up -= up;
      l.down -= down;
      l.sessions -= sessions;
    }
    if (res.dropped.length) {
      // The server settled these (e.g. it lost our heartbeat): stop spending from them.
      const dropped = new Set(res.dropped);
      for (const a of this.accounts.values()) {
        for (let i = a.leases.length - 1; i >= 0; i--) {
          const l = a.leases[i]!;
          if (dropped.has(l.id)) {
            a.available -= l.granted - l.used;
            a.leases.splice(i, 1);
          }
        }
      }
      opts.logger.warn({ dropped: res.dropped.length }, 'server dropped leases');
    }
    if (!this.closing && this.accounts.size === 0 && this.retired.length === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Shutdown: report everything and give every unused byte back. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.inflight]);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.flush(true);
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    this.opts.logger.error({}, 'final usage report failed; the server reconciles the leases after their timeout');
  }

  /** Bytes held in leases right now (for stats and tests). */
  heldBytes(): number {
    let n = 0;
    for (const a of this.accounts.values()) n += a.available;
    return n;
  }
}
