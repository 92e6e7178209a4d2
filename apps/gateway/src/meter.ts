/**
 * Metering: every byte relayed for an account is spent from a byte lease reserved from the server
 * beforehand, so nothing is forwarded that was not paid for and no database call happens per
 * chunk. This module keeps the accounts and their leases; what they spent goes to the server
 * through the report outbox (report/outbox.ts), which the meter is assembled with.
 */
import type { ConnectionOutcome, TargetRulesMatcher, UsageType } from '@proxyhub/core';
import type { LeaseAnswer } from './backend';
import type { RecordSink, RecordStart } from './connection-log/record';
import type { MeterOptions } from './meter-options';
import { partOf, type Parts, type UsageTag } from './usage-parts';

export { DEFAULT_METER_OPTIONS, type MeterOptions } from './meter-options';

/** Waits between lease requests while the server is unreachable. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 2000;

/** `empty`: the wallet is; `cap_reached`: the proxy account's limit is (the wallet may still hold data). */
export type ReserveResult = 'granted' | 'empty' | 'cap_reached' | 'disabled' | 'expired' | 'error';

export class Lease {
  used = 0;
  /** Not yet reported. */
  up = 0;
  down = 0;
  sessions = 0;
  /** The part of the unreported counts already in the journal. */
  jUp = 0;
  jDown = 0;
  jSessions = 0;
  /** The unreported counts by where and how (see usage-parts.ts); null until a tagged spend. */
  parts: Parts | null = null;
  constructor(
    readonly id: string,
    readonly granted: number,
  ) {}
}

function addToParts(lease: Lease, tag: UsageTag, dir: number, n: number): void {
  const p = partOf((lease.parts ??= new Map()), tag);
  if (dir === UP) p.up += n;
  else p.down += n;
}

/** Something the meter can close when its account runs dry or is revoked. */
export interface MeteredConnection {
  readonly credKey: string;
  /** The client's source address, which the owner's IP allow-list must hold. */
  readonly remote?: string | undefined;
  /** The server's line test: from the server's address, which no allow-list holds. */
  readonly lineTest?: boolean;
  /** The token of the line it serves (its username's), whose rotation closes it; none while being opened. */
  readonly lineToken?: string | undefined;
  close(reason: string): void;
  /** Balance empty: stop relaying, deliver what was already paid for, then close. */
  cut?(): void;
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
  /** What the server said at emptyAt: the refusal repeated until emptyRetryMs is over. */
  emptyAs: 'empty' | 'cap_reached' = 'empty';
  disabled = false;
  /** Why the server refused the account for good (until a login says yes again). */
  disabledAs: 'disabled' | 'expired' = 'disabled';
  /**
   * The connection limit (null: none) and what of it this gateway may use: the limit less what the
   * other gateways reported open (connection-slots.ts).
   */
  maxConnections: number | null = null;
  allowance: number | null = null;
  /** The client sockets holding a connection slot, while the account has a limit. */
  readonly slots = new Set<object>();
  /** Its owner is exempt from the target policy (from the last login). */
  targetPolicyExempt = false;
  /** Its own target rules (from the last login or refresh); null when they refuse nothing. */
  targetRules: TargetRulesMatcher | null = null;
  pendingSessions = 0;
  /** Bytes spent since the journal last heard of this account. */
  unjournaled = 0;
  /** While the server is unreachable: no new lease request before this time. */
  retryAt = 0;
  private failures = 0;
  private reserving: Promise<ReserveResult> | null = null;
  private leaseSize: number;
  private lastReserveAt = 0;
  private spentTotal = 0;
  private spentAtReserve = 0;

  constructor(
    readonly meter: Meter,
    readonly id: string,
    readonly usageType: UsageType,
  ) {
    this.leaseSize = meter.opts.initialLeaseBytes;
  }

  /** Spends n bytes the caller checked are available (available >= n); `tag` says where they went. */
  spend(n: number, dir: number, tag?: UsageTag): void {
    this.meter.opts.metrics?.spent(n, dir);
    this.available -= n;
    if (dir === UP) this.meter.bytesUp += n;
    else this.meter.bytesDown += n;
    this.spentTotal += n;
    let lease = this.leases[0]!;
    let left = lease.granted - lease.used;
    if (n < left) {
      lease.used += n;
      if (dir === UP) lease.up += n;
      else lease.down += n;
      if (tag) addToParts(lease, tag, dir, n);
    } else {
      // Crosses into the next lease(s): the used-up one is retired and reported with release.
      while (n > 0) {
        lease = this.leases[0]!;
        left = lease.granted - lease.used;
        const take = n < left ? n : left;
        lease.used += take;
        if (dir === UP) lease.up += take;
        else lease.down += take;
        if (tag) addToParts(lease, tag, dir, take);
        n -= take;
        if (lease.used === lease.granted) this.meter.outbox.retire(this.leases.shift()!);
      }
    }
    // Double-buffered: the next lease is asked for while a whole one is still left, so a fast
    // tunnel never waits for the server.
    if (this.available < this.leaseSize && this.reserving === null && !this.recentlyEmpty()) void this.reserve();
    this.unjournaled += n;
    if (this.unjournaled >= this.meter.opts.journalBytes) this.meter.outbox.journalAccount(this);
  }

  get isReserving(): boolean {
    return this.reserving !== null;
  }

  /** One session is one authenticated connection (counted on the lease it starts on). */
  countSession(tag?: UsageTag): void {
    const lease = this.leases[0];
    if (lease) {
      lease.sessions += 1;
      if (tag) partOf((lease.parts ??= new Map()), tag).sessions += 1;
    } else this.pendingSessions += 1; // counted on the next lease
    this.lastActivity = Date.now();
  }

  recentlyEmpty(): boolean {
    return this.emptyAt !== 0 && Date.now() - this.emptyAt < this.meter.opts.emptyRetryMs;
  }

  /** Reserves until n bytes are available; returns why not when the balance or the server says no. */
  ensure(n: number): Promise<ReserveResult> {
    return new Promise((resolve) => this.whenAvailable(n, resolve));
  }

  /**
   * Reserves until n bytes are available and calls `then` in the same turn it finds them, so a
   * caller that spends them there cannot find them gone: connections of one account wait for the
   * same lease request, and each is called in turn with what the ones before it left. `then`
   * gets why not when the balance or the server says no (available < n then).
   */
  whenAvailable(n: number, then: (r: ReserveResult) => void): void {
    if (this.available >= n) return then('granted');
    void this.reserve().then((r) => (r === 'granted' ? this.whenAvailable(n, then) : then(r)));
  }

  /** One lease request at a time per account; concurrent callers share it. */
  reserve(): Promise<ReserveResult> {
    if (this.disabled) return Promise.resolve(this.disabledAs);
    if (this.meter.isClosing) return Promise.resolve('error');
    if (this.recentlyEmpty()) return Promise.resolve(this.emptyAs);
    if (!this.reserving && this.retryAt > Date.now()) return Promise.resolve('error');
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
      // About leaseSeconds of the account's observed traffic (shrinking by half at most per lease):
      // large enough that a fast tunnel rarely waits for the server, small enough that a gateway
      // that vanishes for good leaves little unbilled (the README states the bound).
      const rate = (this.spentTotal - this.spentAtReserve) / (Math.max(now - this.lastReserveAt, 50) / 1000);
      const size = Math.max(rate * opts.leaseSeconds, this.leaseSize / 2);
      this.leaseSize = Math.round(Math.min(Math.max(size, opts.minLeaseBytes), opts.maxLeaseBytes));
    }
    this.lastReserveAt = now;
    this.spentAtReserve = this.spentTotal;
    try {
      const r = await opts.backend.reserveLease({ gatewayId: opts.gatewayId, proxyAccountId: this.id, bytes: this.leaseSize });
      this.failures = 0;
      this.retryAt = 0;
      return this.adopt(r);
    } catch (err) {
      // The server is unreachable: tunnels wait (relay.ts) and ask again after a backoff.
      this.failures += 1;
      this.retryAt = Date.now() + Math.min(RETRY_MIN_MS * 2 ** (this.failures - 1), RETRY_MAX_MS);
      if (this.failures === 1 || this.failures % 30 === 0)
        opts.logger.warn({ err, account: this.id, failures: this.failures }, 'lease reservation failed; retrying');
      return 'error';
    }
  }

  /** Takes the server's answer to a lease request: this one's, or the first lease that came with a login. */
  adopt(r: LeaseAnswer): ReserveResult {
    if (r.leaseId && r.grantedBytes > 0n) {
      const granted = Number(r.grantedBytes);
      const lease = new Lease(r.leaseId, granted);
      lease.sessions = this.pendingSessions;
      this.pendingSessions = 0;
      this.leases.push(lease);
      this.available += granted;
      this.emptyAt = 0;
      // The next lease is sized by the traffic from here (requestLease).
      if (!this.lastReserveAt) {
        this.lastReserveAt = Date.now();
        this.spentAtReserve = this.spentTotal;
      }
      this.meter.outbox.ensureHeartbeat();
      return 'granted';
    }
    if (r.outcome === 'disabled' || r.outcome === 'expired' || r.outcome === 'unknown_account') {
      this.disabled = true;
      this.disabledAs = r.outcome === 'expired' ? 'expired' : 'disabled';
      return this.disabledAs;
    }
    this.emptyAt = Date.now();
    this.emptyAs = r.outcome === 'cap_reached' ? 'cap_reached' : 'empty';
    return this.emptyAs;
  }

  /** Closes every open connection of the account (account disabled). */
  closeAll(reason: string): void {
    for (const c of [...this.conns]) c.close(reason);
  }

  /** Balance empty: every connection stops relaying and closes once what was paid for is delivered. */
  cutOff(): void {
    for (const c of [...this.conns]) {
      if (c.cut) c.cut();
      else c.close('balance empty');
    }
  }
}

/**
 * What sends the meter's usage to the server: report/outbox.ts (the meter is made with it, and
 * only knows it by this face). Leases taken out of use and accounts that spent journalBytes are
 * handed to it; it keeps the report timer running while there is anything to report.
 */
export interface UsageOutbox {
  retire(lease: Lease): void;
  journalAccount(a: Account): void;
  ensureHeartbeat(): void;
  start(): void;
  flush(releaseAll?: boolean): Promise<void>;
  /** Shutdown: report everything and give every unused byte back. */
  close(): Promise<void>;
}

export class Meter {
  readonly accounts = new Map<string, Account>();
  /** Bytes relayed since start, each way (the fleet heartbeat's rates). */
  bytesUp = 0;
  bytesDown = 0;
  /** A connection slot was taken or given back since the last report (connection-slots.ts). */
  slotsChanged = false;
  /** Where finished connections' records go (the outbox's connection log); null with the log off. */
  records: RecordSink | null = null;
  readonly outbox: UsageOutbox;
  private closing = false;

  /** Lease requests on their way: shutdown waits for them, so no granted lease is left behind. */
  readonly inflight = new Set<Promise<unknown>>();

  constructor(
    readonly opts: MeterOptions,
    outbox: (meter: Meter) => UsageOutbox,
  ) {
    this.outbox = outbox(this);
  }

  get isClosing(): boolean {
    return this.closing;
  }

  track(p: Promise<unknown>): void {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }

  start(): void {
    this.outbox.start();
  }

  /** Sends one report now (after any in flight) and waits for it. */
  flush(releaseAll = false): Promise<void> {
    return this.outbox.flush(releaseAll);
  }

  account(id: string, usageType: UsageType): Account {
    let a = this.accounts.get(id);
    if (!a) {
      a = new Account(this, id, usageType);
      this.accounts.set(id, a);
    }
    return a;
  }

  /** A connection ended: its record goes with the next report (none with the connection log off). */
  recordRow(start: RecordStart, up: number, down: number, outcome: ConnectionOutcome, reason: string): void {
    this.records?.add(start, up, down, outcome, reason);
  }

  /** Shutdown: no new lease requests; everything spent is reported and every unused byte given back. */
  close(): Promise<void> {
    this.closing = true;
    return this.outbox.close();
  }

  /** Bytes held in leases right now (for stats and tests). */
  heldBytes(): number {
    let n = 0;
    for (const a of this.accounts.values()) n += a.available;
    return n;
  }
}
