/**
 * The usage journal: bytes relayed that the server has not acknowledged yet, on the gateway's own
 * disk, so neither a gateway crash nor a server outage gives traffic away: its state and file I/O;
 * the line format is journal-lines.ts. Replay (replay.ts, before the gateway listens) resends every
 * report without an acknowledgement under its own seq (the server applies a (gateway, seq) once, so
 * a report that did arrive is not counted twice) and then reports the usage lines hold beyond the
 * reports, with the connections no report carried. The file is rewritten with only that
 * outstanding state once it grows past a threshold.
 */
import { closeSync, existsSync, fdatasync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { rowCount, sealRows, type RecordJson, type RowBatch } from '../connection-log/row-batch';
import type { Logger } from '../log';
import {
  ackLine,
  decodeLine,
  headerLine,
  LoadedRows,
  recordLines,
  refusedRecordsLine,
  reportItemsOf,
  reportLine,
  usageLine,
  type JournalItem,
  type Line,
} from './journal-lines';

export type { JournalItem };

/** At most this many items per replayed report (the server takes up to 100,000). */
export const REPLAY_ITEMS_PER_REPORT = 10_000;

type Usage = [up: number, down: number, sessions: number];

export interface JournalReport {
  seq: number;
  items: JournalItem[];
  /** Connections that ended (the connection log), stored with this report's usage. */
  connections?: RowBatch[] | undefined;
}

interface PendingLines {
  items: JournalItem[];
  connections: RowBatch[];
}

/**
 * Rewritten with only the outstanding state once it is this long. A rewrite blocks the relay for
 * its fsync (tens of milliseconds with a few seconds of connection records outstanding), so not
 * every few seconds on a busy gateway; a start reads at most this much back.
 */
const COMPACT_AT_BYTES = 16 * 1024 * 1024;

export class UsageJournal {
  /** Journaled usage not covered by any report yet, per lease. */
  private readonly unreported = new Map<string, Usage>();
  /** Reports journaled and not acknowledged, in seq order. */
  private readonly pending = new Map<number, PendingLines>();
  /** Journaled connection records no report carries yet, in the order they ended (reports take them from the front). */
  private records: RowBatch[] = [];
  /** The last of them, not written yet: one "k" line at the next write(). */
  private unwritten: RowBatch[] = [];
  /** Bytes to write before `buffer` (record batches and the lines before them). */
  private out: Uint8Array[] = [];
  /** The size at which the file is compacted next: a multiple of what the last compaction kept, so each rewrites a fraction of what was written since. */
  private compactAt = COMPACT_AT_BYTES;
  private fd: number;
  private size = 0;
  private buffer = '';
  /** Highest seq ever journaled: a later process continues above it. */
  lastSeq = 0;
  private written = 0;
  private synced = 0;
  private syncing = false;
  private compactWanted = false;
  private closed = false;
  private readonly waiters: Array<{ gen: number; resolve: () => void; reject: (err: Error) => void }> = [];

  /** Opens (or creates) the journal of `gatewayId` under `dir`, reading what an earlier run left. */
  static open(dir: string, gatewayId: string, logger: Logger): UsageJournal {
    mkdirSync(dir, { recursive: true });
    return new UsageJournal(join(dir, `usage-${encodeURIComponent(gatewayId)}.jsonl`), gatewayId, logger);
  }

  private constructor(
    readonly path: string,
    readonly gatewayId: string,
    private readonly logger: Logger,
  ) {
    if (existsSync(path)) {
      const rows = this.load(readFileSync(path, 'utf8'));
      // In batches a replayed report takes whole: one batch of everything a long outage left would
      // be one report beyond what the server takes, refused, and its usage dropped with it.
      for (let i = 0; i < rows.length; i += REPLAY_ITEMS_PER_REPORT) this.records.push(sealRows(rows.slice(i, i + REPLAY_ITEMS_PER_REPORT)));
    }
    // Start from a clean file: a torn last line from a crash must not glue onto the next append.
    this.fd = this.rewrite();
  }

  /** Reads the file; answers the records of its lines that no report line took. */
  private load(text: string): RecordJson[] {
    const rows = new LoadedRows();
    const lines = text.split('\n');
    for (let n = 0; n < lines.length; n++) {
      const raw = lines[n]!;
      if (!raw) continue;
      const line = decodeLine(raw);
      if (!line) {
        // Only a crash in the middle of an append leaves this, on the last line.
        if (n < lines.length - 1) this.logger.warn({ path: this.path, line: n + 1 }, 'usage journal: unreadable line skipped');
        continue;
      }
      this.apply(line, rows);
    }
    return rows.untaken;
  }

  private apply(line: Line, rows: LoadedRows): void {
    if ('u' in line) this.add(line.u, line.up, line.dn, line.s);
    else if ('k' in line) rows.addFull(line.k);
    else if ('k2' in line) rows.addCompact(line.k2, line.d);
    else if ('c' in line && !('r' in line)) rows.addEarlier(line.c);
    else if ('r' in line) {
      const items = reportItemsOf(line);
      this.covered(items);
      const taken = line.n ? rows.untaken.splice(0, line.n) : rows.takeEarlier(line.c ?? []);
      this.pending.set(line.r, { items, connections: taken.length ? [sealRows(taken)] : [] });
      if (line.r > this.lastSeq) this.lastSeq = line.r;
    } else if ('a' in line) this.pending.delete(line.a);
    else if ('x' in line) {
      const p = this.pending.get(line.x);
      if (p) p.connections = [];
    } else if ('q' in line && line.q > this.lastSeq) this.lastSeq = line.q;
  }

  private add(leaseId: string, up: number, down: number, sessions: number): void {
    const u = this.unreported.get(leaseId);
    if (u) {
      u[0] += up;
      u[1] += down;
      u[2] += sessions;
      if (!u[0] && !u[1] && !u[2]) this.unreported.delete(leaseId);
    } else if (up || down || sessions) this.unreported.set(leaseId, [up, down, sessions]);
  }

  /** Connections that ended (the meter's latest batch): written with the next write() (never per connection). */
  connections(batch: RowBatch): void {
    this.records.push(batch);
    this.unwritten.push(batch);
  }

  /** The batches sealed since the last write, a line each (before any report line that may carry them). */
  private bufferRecords(): void {
    if (!this.unwritten.length) return;
    if (this.buffer) this.out.push(Buffer.from(this.buffer));
    this.buffer = '';
    this.out.push(...recordLines(this.unwritten));
    this.unwritten = [];
  }

  private covered(items: JournalItem[]): void {
    for (const i of items) this.add(i.leaseId, -i.bytesUp, -i.bytesDown, -i.sessions);
  }

  /** Usage spent from a lease since the previous call for it; written on the next write(). */
  usage(leaseId: string, up: number, down: number, sessions: number): void {
    this.add(leaseId, up, down, sessions);
    this.buffer += usageLine(leaseId, up, down, sessions);
  }

  /**
   * Journals a report and waits until it is on disk, before it is sent: a report that may have
   * reached the server must be resent with the same seq, never folded into a new one.
   */
  async report(seq: number, items: JournalItem[], connections: readonly RowBatch[] = []): Promise<void> {
    if (!this.pending.has(seq)) {
      this.covered(items);
      // The meter reports records in the order they ended: these are the first ones outstanding.
      for (let i = 0; i < connections.length; i++) {
        if (this.records[i] !== connections[i]) throw new Error('usage journal: a report must carry the oldest connection records first');
      }
      this.records.splice(0, connections.length);
      this.pending.set(seq, { items, connections: [...connections] });
      if (seq > this.lastSeq) this.lastSeq = seq;
      this.bufferRecords();
      this.buffer += reportLine(seq, items, rowCount(connections));
    }
    await this.sync();
  }

  /**
   * The server refused the report's connection records as input: the report goes on without them,
   * after a restart too. Resent with them it would be refused for ever, and every report after it
   * would wait (the usage of one bad row is what bills; the row is lost).
   */
  withoutConnections(seq: number): void {
    const p = this.pending.get(seq);
    if (!p?.connections.length) return;
    p.connections = [];
    this.buffer += refusedRecordsLine(seq);
  }

  /** The server applied the report (a lost "a" only means the report is resent and ignored). */
  acknowledged(seq: number): void {
    if (!this.pending.delete(seq)) return;
    this.buffer += ackLine(seq);
  }

  /** What an earlier run left: reports to resend as they are, then usage no report covered. */
  outstanding(): { reports: JournalReport[]; unreported: JournalItem[]; connections?: RowBatch[] } {
    const reports = [...this.pending]
      .sort((x, y) => x[0] - y[0])
      .map(([seq, { items, connections }]): JournalReport => (connections.length ? { seq, items, connections } : { seq, items }));
    // Never below zero (only a lost line could make it so; the server refuses negative usage).
    const unreported = [...this.unreported]
      .map(([leaseId, [up, down, s]]) => ({ leaseId, bytesUp: Math.max(up, 0), bytesDown: Math.max(down, 0), sessions: Math.max(s, 0), release: true }))
      .filter((i) => i.bytesUp || i.bytesDown || i.sessions);
    if (!this.records.length) return { reports, unreported };
    return { reports, unreported, connections: [...this.records] };
  }

  /** Hands what was journaled to the kernel (it survives a kill of the process from here on). */
  write(): void {
    this.bufferRecords();
    if ((!this.buffer && !this.out.length) || this.closed) return;
    if (this.buffer) this.out.push(Buffer.from(this.buffer));
    const data = this.out;
    this.buffer = '';
    this.out = [];
    // writev: the parts as they are, never copied into one buffer (libuv writes them all, IOV_MAX at a time).
    this.size += writevSync(this.fd, data);
    this.written += 1;
    if (this.size >= this.compactAt) this.compactSoon();
  }

  /** Writes and fsyncs (one fdatasync at a time; callers meanwhile share the next one). */
  sync(): Promise<void> {
    this.write();
    const gen = this.written;
    if (this.synced >= gen || this.closed) return Promise.resolve();
    const p = new Promise<void>((resolve, reject) => this.waiters.push({ gen, resolve, reject }));
    this.kick();
    return p;
  }

  private kick(): void {
    if (this.syncing || this.closed) return;
    this.syncing = true;
    const gen = this.written;
    fdatasync(this.fd, (err) => {
      this.syncing = false;
      if (err) this.logger.error({ err, path: this.path }, 'usage journal: fsync failed');
      else this.synced = gen;
      // The fd is not swapped while an fdatasync on it runs: compaction waited for this one.
      if (this.compactWanted) this.compact();
      for (let i = this.waiters.length - 1; i >= 0; i--) {
        const w = this.waiters[i]!;
        if (w.gen <= this.synced) w.resolve();
        else if (err && w.gen <= gen) w.reject(err);
        else continue;
        this.waiters.splice(i, 1);
      }
      if (this.waiters.length) this.kick();
    });
  }

  private compactSoon(): void {
    if (this.syncing) this.compactWanted = true;
    else this.compact();
  }

  /** Rewrites the file with only what is outstanding (atomically: temp file, fsync, rename). */
  compact(): void {
    if (this.closed) return;
    this.compactWanted = false;
    if (this.syncing) {
      this.compactWanted = true;
      return;
    }
    this.write();
    const old = this.fd;
    this.fd = this.rewrite();
    closeSync(old);
    // Everything in the new file is synced.
    this.synced = this.written;
  }

  private rewrite(): number {
    const parts: Uint8Array[] = [];
    const line = (l: string) => parts.push(Buffer.from(l));
    line(headerLine(this.gatewayId, this.lastSeq));
    for (const [leaseId, [up, down, s]] of this.unreported) line(usageLine(leaseId, up, down, s));
    for (const [seq, { items, connections }] of [...this.pending].sort((x, y) => x[0] - y[0])) {
      // Its usage and connection lines are gone with the old file: written again so the report still covers them.
      for (const i of items) line(usageLine(i.leaseId, i.bytesUp, i.bytesDown, i.sessions));
      if (connections.length) parts.push(...recordLines(connections));
      line(reportLine(seq, items, rowCount(connections)));
    }
    // After the reports' own: a report line takes the oldest records not taken yet.
    if (this.records.length) parts.push(...recordLines(this.records));
    this.unwritten = [];
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, 'w');
    const size = writevSync(fd, parts);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.path);
    syncDir(this.path);
    this.size = size;
    this.compactAt = Math.max(COMPACT_AT_BYTES, 4 * this.size);
    return openSync(this.path, 'a');
  }

  /** Writes, syncs and closes (shutdown). */
  async close(): Promise<void> {
    if (this.closed) return;
    if (!this.pending.size && !this.unreported.size && !this.records.length) this.compact();
    await this.sync().catch(() => undefined);
    this.closed = true;
    closeSync(this.fd);
  }
}

/** A rename is durable once its directory is synced. */
function syncDir(file: string): void {
  const dir = file.slice(0, file.lastIndexOf('/')) || '/';
  let fd: number | null = null;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse to fsync a directory; the rename itself is still atomic.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
