/**
 * The usage journal's line format (journal.ts does the file I/O): the one encoder and decoder of
 * its lines. Append-only JSON lines:
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
 * Files of earlier versions are read by the same decoder: their kinds are the EarlierLine types.
 */
import { randomUUID } from 'node:crypto';
import {
  connectionOfLogRow,
  LOG_ROW,
  LOG_SESSION,
  type GatewayConnectionRecord,
  type GatewayLogRow,
  type GatewayLogSession,
  type GatewayUsagePart,
} from '@proxyhub/core';
import { encodeRecord, joinedRows, rowRuns, sessionsOf, type RecordJson, type RowBatch } from '../connection-log/row-batch';

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

type ReportTuple = [string, number, number, number, 0 | 1, PartTuple[]?];

/** The line kinds this version writes. */
export type HeaderLine = { g: string; q: number };
export type UsageLine = { u: string; up: number; dn: number; s: number };
export type ReportLine = { r: number; i: ReportTuple[]; n?: number };
export type AckLine = { a: number };
export type RefusedRecordsLine = { x: number };
export type CompactRowsLine = { k2: GatewayLogRow[]; d: GatewayLogSession[] };
/** Rows with every field: written only for what an earlier version's file left, read back and written again. */
export type FullRowsLine = { k: unknown[] };
/** Earlier versions' forms, read and never written: a record with named fields, and a report line naming its records by id. */
export type EarlierRecordLine = { c: GatewayConnectionRecord };
export type EarlierReportLine = ReportLine & { c?: string[] };

export type Line = HeaderLine | UsageLine | EarlierReportLine | AckLine | RefusedRecordsLine | FullRowsLine | CompactRowsLine | EarlierRecordLine;

/** One line of text as a Line; null for a torn write (only a crash mid-append leaves one, on the last line). */
export function decodeLine(raw: string): Line | null {
  try {
    return JSON.parse(raw) as Line;
  } catch {
    return null;
  }
}

export const headerLine = (gatewayId: string, lastSeq: number): string => `${JSON.stringify({ g: gatewayId, q: lastSeq } satisfies HeaderLine)}\n`;
export const usageLine = (leaseId: string, up: number, down: number, sessions: number): string =>
  `${JSON.stringify({ u: leaseId, up, dn: down, s: sessions } satisfies UsageLine)}\n`;
export const ackLine = (seq: number): string => `${JSON.stringify({ a: seq } satisfies AckLine)}\n`;
export const refusedRecordsLine = (seq: number): string => `${JSON.stringify({ x: seq } satisfies RefusedRecordsLine)}\n`;

const K_OPEN = Buffer.from('{"k":[');
const K_CLOSE = Buffer.from(']}\n');

const K2_OPEN = Buffer.from('{"k2":[');
const D_OPEN = Buffer.from('],"d":[');

/** The lines holding these batches' rows, in order: a "k2" line per run of compact batches, a "k" line per run of the others. */
export function recordLines(batches: readonly RowBatch[]): Uint8Array[] {
  return rowRuns(batches).flatMap((run) =>
    run.compact
      ? [K2_OPEN, ...joinedRows(run.batches), D_OPEN, ...joinedRows(run.batches, sessionsOf), K_CLOSE]
      : [K_OPEN, ...joinedRows(run.batches), K_CLOSE],
  );
}

/** A report line: its usage items as tuples, and how many of the oldest records it carries. */
export function reportLine(seq: number, items: JournalItem[], connections: number): string {
  return `${JSON.stringify({
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
  })}\n`;
}

/** A report line's items as the meter made them. */
export function reportItemsOf(line: ReportLine): JournalItem[] {
  return line.i.map(([leaseId, bytesUp, bytesDown, sessions, release, parts]): JournalItem => {
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
}

/** While a file is read: the records no report line took yet, in order, and an earlier version's by id. */
export class LoadedRows {
  untaken: RecordJson[] = [];
  private readonly earlier = new Map<string, RecordJson>();

  /** A line of rows with every field, as they are. */
  addFull(rows: readonly unknown[]): void {
    for (const row of rows) this.untaken.push(JSON.stringify(row) as RecordJson);
  }

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
    const byKey = new Map(sessions.map((s) => [s[LOG_SESSION.sessionKey], s]));
    for (const r of rows) {
      const s = byKey.get(r[LOG_ROW.sessionKey]);
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
