/**
 * The usage journal: bytes relayed that the server has not acknowledged yet, on the gateway's own
 * disk, so neither a gateway crash nor a server outage gives traffic away. Append-only JSON lines:
 *
 *   {"g":gatewayId,"q":lastSeq}                    first line (written at creation and compaction)
 *   {"u":leaseId,"up":n,"dn":n,"s":n}               usage spent from a lease since its previous line
 *   {"r":seq,"i":[[leaseId,up,down,sessions,release,parts?],...]}   a report, synced before it is sent
 *                                                 (parts: [[protocol,country,state,city,up,down,sessions,upstreamId?],...])
 *   {"a":seq}                                       the server applied that report
 *   {"x":seq}                                       the server refused that report's connections: it
 *                                                 is resent without them (its usage is what bills)
 *   {"k2":[row,...],"d":[session,...]}              connections that ended (the connection log), as
 *                                                 compact rows (gatewayLogRow) in the order they ended,
 *                                                 and the sessions they name (gatewayLogSession)
 *   {"k":[row,...]}                                 the same as rows with every field (CONNECTION_ROW_FIELDS):
 *                                                 what an earlier run left, read back and written again
 *   a report line's "n":count                       that report carries the first `count` connections
 *                                                 no earlier report line took (reports take them in order)
 *   {"c":record} and a report line's "c":[id,...]   the same in the files of earlier versions (read, not written)
 *
 * Replay (replayUsageJournal, before the gateway listens) resends every report without an "a" under
 * its own seq (the server applies a (gateway, seq) once, so a report that did arrive is not counted
 * twice) and then reports what the "u" lines hold beyond the reports, with the connections no report carried. The file is rewritten with
 * only that outstanding state once it grows past a threshold.
 */
import { closeSync, existsSync, fdatasync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { connectionOfLogRow, type GatewayConnectionRecord, type GatewayLogRow, type GatewayLogSession, type GatewayUsagePart } from '@proxyhub/core';
import { isRejectedInput, type Backend } from './backend';
import { batchesWithin, encodeRecord, joinedRows, rowCount, rowRuns, sealRows, sessionsOf, type RecordJson, type RowBatch } from './connection-record';
import type { Logger } from './log';

export interface JournalItem {
  leaseId: string;
  bytesUp: number;
  bytesDown: number;
  sessions: number;
  release: boolean;
  /** Where and how (usage-parts.ts); usage journaled outside a report is replayed without it. */
  parts?: GatewayUsagePart[];
}

/** The upstream id comes last and only when there is one (lines of older runs lack it). */
type PartTuple = [GatewayUsagePart['protocol'], string, string, string, number, number, number, string?];

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

type Usage = [up: number, down: number, sessions: number];
type Line =
  | { g: string; q: number }
  | { u: string; up: number; dn: number; s: number }
  | { r: number; i: Array<[string, number, number, number, 0 | 1, PartTuple[]?]>; n?: number; c?: string[] }
  | { a: number }
  | { x: number }
  | { k: unknown[] }
  | { k2: GatewayLogRow[]; d: GatewayLogSession[] }
  | { c: GatewayConnectionRecord };

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
      let line: Line;
      try {
        line = JSON.parse(raw) as Line;
      } catch {
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
    else if ('k' in line) for (const row of line.k) rows.untaken.push(JSON.stringify(row) as RecordJson);
    else if ('k2' in line) rows.addCompact(line.k2, line.d);
    else if ('c' in line && !('r' in line)) rows.addEarlier(line.c);
    else if ('r' in line) {
      const items = line.i.map(([leaseId, bytesUp, bytesDown, sessions, release, parts]): JournalItem => {
        const item: JournalItem = { leaseId, bytesUp, bytesDown, sessions, release: release === 1 };
        if (parts?.length) {
          item.parts = parts.map(([protocol, country, state, city, up, down, s, upstreamId]) => ({
            protocol,
            country,
            state,
            city,
            upstreamId: upstreamId ?? '',
            bytesUp: up,
            bytesDown: down,
            sessions: s,
          }));
        }
        return item;
      });
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
    this.buffer += `${JSON.stringify({ u: leaseId, up, dn: down, s: sessions })}\n`;
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
      this.buffer += `${reportLine(seq, items, rowCount(connections))}\n`;
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
    this.buffer += `${JSON.stringify({ x: seq })}\n`;
  }

  /** The server applied the report (a lost "a" only means the report is resent and ignored). */
  acknowledged(seq: number): void {
    if (!this.pending.delete(seq)) return;
    this.buffer += `${JSON.stringify({ a: seq })}\n`;
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
    const line = (l: string) => parts.push(Buffer.from(`${l}\n`));
    line(JSON.stringify({ g: this.gatewayId, q: this.lastSeq }));
    for (const [leaseId, [up, down, s]] of this.unreported) line(JSON.stringify({ u: leaseId, up, dn: down, s }));
    for (const [seq, { items, connections }] of [...this.pending].sort((x, y) => x[0] - y[0])) {
      // Its usage and connection lines are gone with the old file: written again so the report still covers them.
      for (const i of items) line(JSON.stringify({ u: i.leaseId, up: i.bytesUp, dn: i.bytesDown, s: i.sessions }));
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

/** While a file is read: the records no report line took yet, in order, and an earlier version's by id. */
class LoadedRows {
  untaken: RecordJson[] = [];
  private readonly earlier = new Map<string, RecordJson>();

  /** An earlier version's record line ({"c":record}), as this version's row (such a file has no "k" lines). */
  addEarlier(record: GatewayConnectionRecord): void {
    const row = encodeRecord(record);
    this.earlier.set(record.id, row);
    this.untaken.push(row);
  }

  /**
   * A line of compact rows, each as a row with every field and a new id (the server makes one
   * for a compact row: whichever form a report is resent in, its (gateway, seq) stores it once).
   * The line names every session its rows do; a row it does not name could only be a torn write.
   */
  addCompact(rows: readonly GatewayLogRow[], sessions: readonly GatewayLogSession[]): void {
    const byKey = new Map(sessions.map((s) => [s[0], s]));
    for (const r of rows) {
      const s = byKey.get(r[4]);
      if (s) this.untaken.push(encodeRecord(connectionOfLogRow(randomUUID(), s, r)));
    }
  }

  /** The records an earlier version's report line names by id. */
  takeEarlier(ids: readonly string[]): RecordJson[] {
    const taken = ids.flatMap((id) => this.earlier.get(id) ?? []);
    const gone = new Set(taken);
    this.untaken = this.untaken.filter((r) => !gone.has(r));
    return taken;
  }
}

const K_OPEN = Buffer.from('{"k":[');
const K_CLOSE = Buffer.from(']}\n');

const K2_OPEN = Buffer.from('{"k2":[');
const D_OPEN = Buffer.from('],"d":[');

/** The lines holding these batches' rows, in order: a "k2" line per run of compact batches, a "k" line per run of the others. */
function recordLines(batches: readonly RowBatch[]): Uint8Array[] {
  return rowRuns(batches).flatMap((run) =>
    run.compact
      ? [K2_OPEN, ...joinedRows(run.batches), D_OPEN, ...joinedRows(run.batches, sessionsOf), K_CLOSE]
      : [K_OPEN, ...joinedRows(run.batches), K_CLOSE],
  );
}

function reportLine(seq: number, items: JournalItem[], connections: number): string {
  return JSON.stringify({
    ...(connections ? { n: connections } : {}),
    r: seq,
    i: items.map((i) => {
      const base = [i.leaseId, i.bytesUp, i.bytesDown, i.sessions, i.release ? 1 : 0];
      if (!i.parts?.length) return base;
      return [
        ...base,
        i.parts.map((p): PartTuple => {
          const t: PartTuple = [p.protocol, p.country, p.state, p.city, p.bytesUp, p.bytesDown, p.sessions];
          if (p.upstreamId) t.push(p.upstreamId);
          return t;
        }),
      ];
    }),
  });
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

/** At most this many items per replayed report (the server takes up to 100,000). */
const REPLAY_ITEMS_PER_REPORT = 10_000;

/**
 * Delivers what an earlier run left in the journal, before the gateway takes traffic: reports
 * that may or may not have arrived go again under their own seq, then the usage no report
 * carried, settling those leases (the earlier run is gone; listen() settles the rest). Retries
 * until the server answers: a gateway that cannot bill must not relay.
 */
export async function replayUsageJournal(journal: UsageJournal, backend: Pick<Backend, 'report'>, logger: Logger): Promise<void> {
  const { reports, unreported, connections = [] } = journal.outstanding();
  if (!reports.length && !unreported.length && !connections.length) return;
  logger.info({ reports: reports.length, leases: unreported.length }, 'usage journal: delivering what the last run left');
  const deliver = async (report: JournalReport) => {
    let r = report;
    for (let attempt = 1; ; attempt++) {
      try {
        await backend.report({ gatewayId: journal.gatewayId, seq: r.seq, items: r.items, ...(r.connections?.length ? { rows: r.connections } : {}) });
        break;
      } catch (err) {
        if (isRejectedInput(err) && r.connections?.length) {
          logger.error(
            { err, seq: r.seq, records: rowCount(r.connections) },
            "usage journal: the server refused a report's connection records; resent without them",
          );
          journal.withoutConnections(r.seq);
          r = { seq: r.seq, items: r.items };
          continue;
        }
        if (isRejectedInput(err)) {
          // Resending cannot change the answer; keeping it would block every later start.
          logger.error({ err, seq: r.seq, items: r.items }, 'usage journal: the server refused a report; dropped');
          break;
        }
        if (attempt === 1 || attempt % 30 === 0) logger.warn({ err, attempt }, 'usage journal: server unreachable; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** (attempt - 1), 2000)));
      }
    }
    journal.acknowledged(r.seq);
  };
  for (const r of reports) await deliver(r);
  // The rest in reports of at most REPLAY_ITEMS_PER_REPORT items and about as many records (whole batches).
  let itemsAt = 0;
  let batchesAt = 0;
  while (itemsAt < unreported.length || batchesAt < connections.length) {
    const seq = Math.max(Date.now() * 1000, journal.lastSeq + 1);
    const items = unreported.slice(itemsAt, itemsAt + REPLAY_ITEMS_PER_REPORT);
    itemsAt += items.length;
    const records = connections.slice(batchesAt, batchesAt + batchesWithin(connections, batchesAt, REPLAY_ITEMS_PER_REPORT));
    batchesAt += records.length;
    await journal.report(seq, items, records);
    await deliver({ seq, items, connections: records });
  }
  journal.compact();
  logger.info({}, 'usage journal: delivered');
}
