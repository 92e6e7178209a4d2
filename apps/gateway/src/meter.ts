/**
 * Metering: every byte relayed for an account is spent from a byte lease reserved from the server
 * beforehand, so nothing is forwarded that was not paid for and no database call happens per
 * chunk. Usage is reported per lease every few seconds in one batch per gateway, under a sequence
 * number the server applies once; a report that failed is resent unchanged until acknowledged.
 * While the server is unreachable the gateway goes on within the leases it holds, keeps every
 * unreported byte (in memory and, with a journal, on disk) and delivers it when the server is back.
 */
import type { ConnectionOutcome, UsageType } from '@proxyhub/core';
import { isRejectedInput, type Backend, type LeaseAnswer } from './backend';
import { batchesWithin, rowCount, type RecordStart, type RowBatch } from './connection-record';
import { RowWriter } from './row-writer';
import type { JournalItem, UsageJournal } from './journal';
import type { Logger } from './log';
import type { GatewayMetrics } from './metrics';
import { acknowledgeParts, partOf, reportedParts, snapshotParts, type Parts, type PartsSnapshot, type UsageTag } from './usage-parts';

/** How long shutdown waits for the final usage report: short when the journal keeps what it misses. */
const FINAL_REPORT_JOURNALED_MS = 3000;
const FINAL_REPORT_MS = 10_000;

export interface MeterOptions {
  gatewayId: string;
  backend: Backend;
  logger: Logger;
  /**
   * First lease of an account; later ones are sized by its observed rate (leaseSeconds of traffic).
   * Small (a slow start): accounts that share a wallet (sub-accounts, a shop batch) must not tie it
   * up in leases they do not use, or the next account is refused while the balance is still there.
   */
  initialLeaseBytes: number;
  minLeaseBytes: number;
  /** Caps a lease: with the next one reserved ahead, an account holds at most two. */
  maxLeaseBytes: number;
  leaseSeconds: number;
  reportIntervalMs: number;
  /** A report is sent at least this often while leases are held: the server's lease heartbeat. */
  heartbeatMs: number;
  /** An account without connections for this long gives its leases back. */
  idleReleaseMs: number;
  /** After the server said "empty", new connections are refused for this long without asking again. */
  emptyRetryMs: number;
  /** Unacknowledged usage on disk (survives a crash); written every journalIntervalMs or journalBytes per account. */
  journal?: UsageJournal | undefined;
  journalIntervalMs: number;
  journalBytes: number;
  metrics?: GatewayMetrics | undefined;
  /** GATEWAY_CONNECTION_LOG: false, no connection records are made or reported (usage is billed the same). */
  connectionLog: boolean;
}

export const DEFAULT_METER_OPTIONS = {
  initialLeaseBytes: 1024 * 1024,
  minLeaseBytes: 1024 * 1024,
  maxLeaseBytes: 128 * 1024 * 1024,
  leaseSeconds: 10,
  reportIntervalMs: 2000,
  heartbeatMs: 30_000,
  idleReleaseMs: 15_000,
  emptyRetryMs: 500,
  journalIntervalMs: 250,
  journalBytes: 1024 * 1024,
  connectionLog: true,
} satisfies Partial<MeterOptions>;

/** Waits between attempts while the server is unreachable (lease requests and reports). */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 2000;
const REPORT_RETRY_MAX_MS = 5000;

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
        if (lease.used === lease.granted) this.meter.retire(this.leases.shift()!);
      }
    }
    // Double-buffered: the next lease is asked for while a whole one is still left, so a fast
    // tunnel never waits for the server.
    if (this.available < this.leaseSize && this.reserving === null && !this.recentlyEmpty()) void this.reserve();
    this.unjournaled += n;
    if (this.unjournaled >= this.meter.opts.journalBytes) this.meter.journalAccount(this);
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
    } else this.meter.orphanSessions(this);
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
      this.meter.ensureHeartbeat();
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

/** About this many connection records at most per report (whole batches; about 4 MiB of JSON); the rest wait for the next. */
export const MAX_RECORDS_PER_REPORT = 20_000;
/** Rows are sealed into a batch at least this often, between journal writes. */
const SEAL_ROWS = 2000;
/** While a limited account holds connections, its count goes to the server at least this often (the server forgets counts after 10 s). */
const CONNECTIONS_REPORT_MS = 4000;

interface PendingReport {
  seq: number;
  items: JournalItem[];
  connections: RowBatch[];
  openConnections: Array<{ proxyAccountId: string; open: number }>;
  snapshot: Array<[Lease, number, number, number, PartsSnapshot]>;
  retired: Lease[];
}

function reportItem(l: Lease, release: boolean, parts: PartsSnapshot): JournalItem {
  const item: JournalItem = { leaseId: l.id, bytesUp: l.up, bytesDown: l.down, sessions: l.sessions, release };
  const reported = reportedParts(parts);
  if (reported) item.parts = reported;
  return item;
}

function journalLease(journal: UsageJournal, l: Lease): void {
  const up = l.up - l.jUp;
  const down = l.down - l.jDown;
  const sessions = l.sessions - l.jSessions;
  if (!up && !down && !sessions) return;
  journal.usage(l.id, up, down, sessions);
  l.jUp = l.up;
  l.jDown = l.down;
  l.jSessions = l.sessions;
}

export class Meter {
  readonly accounts = new Map<string, Account>();
  /** Bytes relayed since start, each way (the fleet heartbeat's rates). */
  bytesUp = 0;
  bytesDown = 0;
  /** A connection slot was taken or given back since the last report (connection-slots.ts). */
  slotsChanged = false;
  /** Leases taken out of use (used up, idle, shutdown), to be reported once more with release. */
  private retired: Lease[] = [];
  /** Connections that ended since the last seal (the connection log), reported with the next report. */
  private readonly rows = new RowWriter();
  /** Sealed rows (at each journal write and report), reported in order. */
  private batches: RowBatch[] = [];
  private seq: number;
  private pending: PendingReport | null = null;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private journalTimer: NodeJS.Timeout | null = null;
  private lastSent = 0;
  private closing = false;
  private reportFailures = 0;
  private reportRetryAt = 0;

  /** Lease requests on their way: shutdown waits for them, so no granted lease is left behind. */
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(readonly opts: MeterOptions) {
    // Unique across restarts: above the clock-based start and above anything an earlier run journaled.
    this.seq = Math.max(Date.now() * 1000, opts.journal?.lastSeq ?? 0);
  }

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
    if (this.opts.journal && !this.journalTimer) {
      this.journalTimer = setInterval(() => this.journalAll(), this.opts.journalIntervalMs);
      this.journalTimer.unref();
    }
  }

  /** Puts every lease's usage since the last time into the journal and syncs it (the 250 ms tick). */
  private journalAll(): void {
    const { journal } = this.opts;
    if (!journal) return;
    this.sealRows();
    for (const a of this.accounts.values()) {
      a.unjournaled = 0;
      for (const l of a.leases) journalLease(journal, l);
    }
    for (const l of this.retired) journalLease(journal, l);
    this.syncJournal();
  }

  /**
   * An account spent journalBytes since the journal last heard of it: written now, not in 250 ms.
   * Its usage only: the rows wait for the tick (sealing them here too, several times a second on a
   * busy gateway, made many small batches, each a copy, a line and a part of the report).
   */
  journalAccount(a: Account): void {
    a.unjournaled = 0;
    const { journal } = this.opts;
    if (!journal) return;
    for (const l of a.leases) journalLease(journal, l);
    for (const l of this.retired) journalLease(journal, l);
    this.syncJournal();
  }

  private syncJournal(): void {
    this.opts.journal!.sync().catch((err: unknown) => this.opts.logger.error({ err }, 'usage journal sync failed'));
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

  /** A connection ended: its record goes with the next report, and into the journal meanwhile. */
  recordRow(start: RecordStart, up: number, down: number, outcome: ConnectionOutcome, reason: string): void {
    if (!this.opts.connectionLog) return;
    this.rows.row(start, up, down, outcome, reason);
    if (this.rows.count >= SEAL_ROWS) this.sealRows();
    this.ensureHeartbeat();
  }

  /** The rows since the last seal become one batch, handed to the journal to write. */
  private sealRows(): void {
    const batch = this.rows.seal();
    if (!batch) return;
    this.batches.push(batch);
    this.opts.journal?.connections(batch);
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
    // The server is unreachable: retry with backoff, the usage waits (and is journaled).
    if (now < this.reportRetryAt) return;
    let due =
      this.retired.length > 0 ||
      this.rows.count > 0 ||
      this.batches.length > 0 ||
      this.pending !== null ||
      this.slotsChanged ||
      now - this.lastSent >= this.opts.heartbeatMs;
    for (const a of this.accounts.values()) {
      if (due) break;
      if (a.slots.size && now - this.lastSent >= CONNECTIONS_REPORT_MS) due = true;
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
    const openConnections: PendingReport['openConnections'] = [];
    this.slotsChanged = false;
    for (const [id, a] of this.accounts) {
      if (a.maxConnections !== null) openConnections.push({ proxyAccountId: id, open: a.slots.size });
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
        const parts = snapshotParts(l.parts);
        items.push(reportItem(l, false, parts));
        snapshot.push([l, l.up, l.down, l.sessions, parts]);
      }
    }
    const retired = this.retired;
    this.retired = [];
    for (const l of retired) {
      const parts = snapshotParts(l.parts);
      items.push(reportItem(l, true, parts));
      snapshot.push([l, l.up, l.down, l.sessions, parts]);
    }
    this.sealRows();
    const connections = this.batches.splice(0, batchesWithin(this.batches, 0, MAX_RECORDS_PER_REPORT));
    this.seq += 1;
    return { seq: this.seq, items, connections, openConnections, snapshot, retired };
  }

  private async send(releaseAll: boolean): Promise<void> {
    // A report that was not acknowledged goes again, unchanged (same seq): the server applies it once.
    if (this.pending) {
      await this.deliver(this.pending);
      if (!releaseAll) return;
    }
    if (this.opts.journal) this.journalAll();
    await this.deliver(this.build(releaseAll));
  }

  private async deliver(report: PendingReport): Promise<void> {
    this.pending = report;
    const { opts } = this;
    let res: { applied: boolean; dropped: string[]; allowances?: Array<{ proxyAccountId: string; allowed: number }> };
    try {
      // On disk before it leaves: after a crash it is resent under this seq, never counted twice.
      await opts.journal?.report(report.seq, report.items, report.connections);
      res = await opts.backend.report({
        gatewayId: opts.gatewayId,
        seq: report.seq,
        items: report.items,
        ...(report.connections.length ? { rows: report.connections } : {}),
        openConnections: report.openConnections,
      });
    } catch (err) {
      if (isRejectedInput(err) && report.connections.length) {
        // A record the server refuses would refuse this report for ever, and every report after it
        // would wait behind it: its usage goes again at once without its records.
        opts.logger.error(
          { err, seq: report.seq, records: rowCount(report.connections) },
          "the server refused a report's connection records; resent without them",
        );
        opts.journal?.withoutConnections(report.seq);
        report.connections = [];
        return this.deliver(report);
      }
      this.reportFailures += 1;
      this.reportRetryAt = Date.now() + Math.min(opts.reportIntervalMs * 2 ** (this.reportFailures - 1), REPORT_RETRY_MAX_MS);
      if (this.reportFailures === 1 || this.reportFailures % 20 === 0) {
        opts.logger.warn({ err, seq: report.seq, items: report.items.length, failures: this.reportFailures }, 'usage report failed; will resend');
      }
      throw err;
    }
    if (this.reportFailures) opts.logger.info({ failures: this.reportFailures }, 'usage reports delivered again');
    this.reportFailures = 0;
    this.reportRetryAt = 0;
    this.pending = null;
    this.lastSent = Date.now();
    opts.journal?.acknowledged(report.seq);
    for (const x of res.allowances ?? []) {
      const a = this.accounts.get(x.proxyAccountId);
      if (a) a.allowance = x.allowed;
    }
    for (const [l, up, down, sessions, parts] of report.snapshot) {
      acknowledgeParts(l.parts, parts);
      l.up -= up;
      l.down -= down;
      l.sessions -= sessions;
      l.jUp -= up;
      l.jDown -= down;
      l.jSessions -= sessions;
    }
    if (res.dropped.length) {
      // The server settled these (e.g. it lost our heartbeat): stop spending from them. What was
      // spent since goes out once more with the next report (the server bills it from the wallet).
      const dropped = new Set(res.dropped);
      for (const a of this.accounts.values()) {
        for (let i = a.leases.length - 1; i >= 0; i--) {
          const l = a.leases[i]!;
          if (dropped.has(l.id)) {
            a.available -= l.granted - l.used;
            a.leases.splice(i, 1);
            if (l.up || l.down || l.sessions) this.retired.push(l);
          }
        }
      }
      opts.logger.warn({ dropped: res.dropped.length }, 'server dropped leases');
    }
    if (!this.closing && this.accounts.size === 0 && this.retired.length === 0 && !this.rows.count && !this.batches.length && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Shutdown: report everything and give every unused byte back. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.journalTimer) clearInterval(this.journalTimer);
    this.journalTimer = null;
    // The connections are closed: everything spent is on disk before the slow part (a forced exit may cut it short).
    if (this.opts.journal) this.journalAll();
    // A server that is going down too (the launcher died, taking both) may hold a call until its
    // timeout: with the journal nothing depends on the final report, so shutdown stays short.
    const deadline = Date.now() + (this.opts.journal ? FINAL_REPORT_JOURNALED_MS : FINAL_REPORT_MS);
    const inTime = <T>(p: Promise<T>) =>
      Promise.race([
        p,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('shutdown deadline')), Math.max(0, deadline - Date.now())).unref()),
      ]);
    await inTime(Promise.allSettled([...this.inflight])).catch(() => undefined);
    let delivered = false;
    for (let attempt = 0; attempt < 3 && !delivered && Date.now() < deadline; attempt++) {
      try {
        await inTime(this.flush(true));
        delivered = true;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    if (!delivered) {
      this.opts.logger.error(
        {},
        this.opts.journal
          ? 'final usage report failed; the journal delivers it on the next start'
          : 'final usage report failed; the server reconciles the leases after their timeout',
      );
    }
    if (this.opts.journal) {
      // Whatever the last report did not carry is on disk for the next start.
      this.journalAll();
      await this.opts.journal.close();
    }
  }

  /** Bytes held in leases right now (for stats and tests). */
  heldBytes(): number {
    let n = 0;
    for (const a of this.accounts.values()) n += a.available;
    return n;
  }
}
