/**
 * The report outbox: what the meter's leases spent, and the connection records that go with it,
 * sent to the server every few seconds in one report per gateway under a sequence number the
 * server applies once; a report that failed is resent unchanged until acknowledged. While the
 * server is unreachable the gateway goes on within the leases it holds, keeps every unreported
 * byte (in memory and, with a journal, on disk) and delivers it when the server is back.
 * tick -> flush -> send -> build -> deliver.
 */
import { isRejectedInput } from '../backend';
import { ConnectionLog } from '../connection-log/connection-log';
import { rowCount, type RowBatch } from '../connection-log/row-batch';
import { Meter, type Account, type Lease, type MeterOptions, type UsageOutbox } from '../meter';
import { acknowledgeParts, reportedParts, snapshotParts, type PartsSnapshot } from '../usage-parts';
import type { JournalItem, UsageJournal } from './journal';

/** How long shutdown waits for the final usage report: short when the journal keeps what it misses. */
const FINAL_REPORT_JOURNALED_MS = 3000;
const FINAL_REPORT_MS = 10_000;
const REPORT_RETRY_MAX_MS = 5000;
/** About this many connection records at most per report (whole batches; about 4 MiB of JSON); the rest wait for the next. */
const MAX_RECORDS_PER_REPORT = 20_000;
/** While a limited account holds connections, its count goes to the server at least this often (the server forgets counts after 10 s). */
const CONNECTIONS_REPORT_MS = 4000;

/** A meter with its outbox: what the gateway (and a test of metering) is made with. */
export function createMeter(opts: MeterOptions): Meter {
  return new Meter(opts, (meter) => new ReportOutbox(meter));
}

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

export class ReportOutbox implements UsageOutbox {
  /** Leases taken out of use (used up, idle, shutdown), to be reported once more with release. */
  private retired: Lease[] = [];
  /** Connections that ended, reported with the next reports (null: GATEWAY_CONNECTION_LOG=0). */
  private readonly log: ConnectionLog | null;
  private seq: number;
  private pending: PendingReport | null = null;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private journalTimer: NodeJS.Timeout | null = null;
  private lastSent = 0;
  private reportFailures = 0;
  private reportRetryAt = 0;

  constructor(private readonly meter: Meter) {
    const { opts } = meter;
    // Unique across restarts: above the clock-based start and above anything an earlier run journaled.
    this.seq = Math.max(Date.now() * 1000, opts.journal?.lastSeq ?? 0);
    this.log = opts.connectionLog
      ? new ConnectionLog(
          (batch) => opts.journal?.connections(batch),
          () => this.ensureHeartbeat(),
        )
      : null;
    meter.records = this.log;
  }

  private get opts(): MeterOptions {
    return this.meter.opts;
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
    this.log?.seal();
    for (const a of this.meter.accounts.values()) {
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

  retire(lease: Lease): void {
    this.retired.push(lease);
  }

  /** Makes sure a heartbeat goes out (the report timer runs). */
  ensureHeartbeat(): void {
    if (!this.timer && !this.meter.isClosing) this.start();
  }

  private async tick(): Promise<void> {
    const now = Date.now();
    // The server is unreachable: retry with backoff, the usage waits (and is journaled).
    if (now < this.reportRetryAt) return;
    let due =
      this.retired.length > 0 ||
      (this.log?.waiting ?? false) ||
      this.pending !== null ||
      this.meter.slotsChanged ||
      now - this.lastSent >= this.opts.heartbeatMs;
    for (const a of this.meter.accounts.values()) {
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
    this.meter.slotsChanged = false;
    for (const [id, a] of this.meter.accounts) {
      if (a.maxConnections !== null) openConnections.push({ proxyAccountId: id, open: a.slots.size });
      const idle = a.conns.size === 0 && now - a.lastActivity >= this.opts.idleReleaseMs;
      if (releaseAll || idle || a.disabled) {
        // Give the rest back: these leases are no longer spent from.
        this.retired.push(...a.leases.splice(0));
        a.available = 0;
        if (a.conns.size === 0 && !a.isReserving) this.meter.accounts.delete(id);
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
    this.log?.seal();
    const connections = this.log?.take(MAX_RECORDS_PER_REPORT) ?? [];
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
      const a = this.meter.accounts.get(x.proxyAccountId);
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
      for (const a of this.meter.accounts.values()) {
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
    if (!this.meter.isClosing && this.meter.accounts.size === 0 && this.retired.length === 0 && !this.log?.waiting && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Shutdown: report everything and give every unused byte back. */
  async close(): Promise<void> {
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
    await inTime(Promise.allSettled([...this.meter.inflight])).catch(() => undefined);
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
}
