/**
 * Connection records in batches: the rows of one seal as the bytes of their JSON, which the journal
 * writes and the usage report sends as they are (report/), never parsed or serialized again.
 */
import { connectionRowOf, type GatewayConnectionRecord } from '@proxyhub/core';

/** A record as the JSON text of its row (CONNECTION_ROW_FIELDS): an earlier run's journal read back. */
export type RecordJson = string & { readonly __recordJson: true };

/**
 * Rows sealed together: their JSON, comma-joined, as bytes, which the journal and the usage report
 * carry unchanged. Rows held as strings until their report's answer (seconds, at thousands a
 * second) were copied by every young-generation garbage collection and then filled the old
 * generation; the bytes of a batch live outside the JS heap. The meter seals its rows at each
 * journal write and report. `sessions`: the rows are compact (gatewayLogRow) and these are the
 * entries of the sessions they name (gatewayLogSession), comma-joined; absent: rows with every
 * field (gatewayConnectionTuple), as an earlier run's journal is read back.
 */
export interface RowBatch {
  readonly bytes: Uint8Array;
  readonly count: number;
  readonly sessions?: Uint8Array;
}

/** Rows read back from a journal as one batch. */
export function sealRows(rows: readonly RecordJson[]): RowBatch {
  return { bytes: Buffer.from(rows.join(',')), count: rows.length };
}

const COMMA = Buffer.from(',');

/** The batches' rows (or `part` of each) with a comma between each: the inside of one JSON array. */
export function joinedRows(batches: readonly RowBatch[], part: (b: RowBatch) => Uint8Array = (b) => b.bytes): Uint8Array[] {
  const parts: Uint8Array[] = [];
  batches.forEach((b, i) => (i ? parts.push(COMMA, part(b)) : parts.push(part(b))));
  return parts;
}

/** A report's or journal line's batches as runs of one form each, in order: compact rows with their sessions, or rows with every field. */
export function rowRuns(batches: readonly RowBatch[]): Array<{ compact: boolean; batches: RowBatch[] }> {
  const runs: Array<{ compact: boolean; batches: RowBatch[] }> = [];
  for (const b of batches) {
    const compact = b.sessions !== undefined;
    const last = runs.at(-1);
    if (last?.compact === compact) last.batches.push(b);
    else runs.push({ compact, batches: [b] });
  }
  return runs;
}

/** The sessions of compact batches, comma-joined (a session named by several batches is there once per batch). */
export const sessionsOf = (b: RowBatch): Uint8Array => b.sessions!;

export function rowCount(batches: readonly RowBatch[]): number {
  let n = 0;
  for (const b of batches) n += b.count;
  return n;
}

/** How many batches from `start` on make one report of at most `maxRows` rows (at least one batch: a batch is never split). */
export function batchesWithin(batches: readonly RowBatch[], start: number, maxRows: number): number {
  let end = start;
  for (let rows = 0; end < batches.length; end++) {
    rows += batches[end]!.count;
    if (end > start && rows > maxRows) break;
  }
  return end - start;
}

/** A record of an earlier run's journal (named fields) as this run's row. */
export function encodeRecord(r: GatewayConnectionRecord): RecordJson {
  return JSON.stringify(connectionRowOf(r)) as RecordJson;
}
