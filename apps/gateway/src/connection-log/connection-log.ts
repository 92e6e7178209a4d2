/**
 * The gateway's side of the connection log: finished connections become rows (RowWriter), rows
 * are sealed into batches at each journal write and report, and reports take the batches oldest
 * first. What is sealed is handed to `onSeal` (the journal) before any report can carry it.
 */
import type { ConnectionOutcome } from '@proxyhub/core';
import type { RecordSink, RecordStart } from './record';
import { batchesWithin, type RowBatch } from './row-batch';
import { RowWriter } from './row-writer';

/** Rows are sealed into a batch at least this often, between journal writes. */
const SEAL_ROWS = 2000;

export class ConnectionLog implements RecordSink {
  /** Connections that ended since the last seal. */
  private readonly rows = new RowWriter();
  /** Sealed rows, reported in order. */
  private batches: RowBatch[] = [];

  constructor(
    private readonly onSeal: (batch: RowBatch) => void,
    /** A record arrived (the report timer must run). */
    private readonly onRecord: () => void,
  ) {}

  /** A connection ended: its row is written now, sealed with the next journal write or report. */
  add(start: RecordStart, up: number, down: number, outcome: ConnectionOutcome, reason: string): void {
    this.rows.row(start, up, down, outcome, reason);
    if (this.rows.count >= SEAL_ROWS) this.seal();
    this.onRecord();
  }

  /** The rows since the last seal become one batch, handed to onSeal. */
  seal(): void {
    const batch = this.rows.seal();
    if (!batch) return;
    this.batches.push(batch);
    this.onSeal(batch);
  }

  /** Records written and not yet taken by a report. */
  get waiting(): boolean {
    return this.rows.count > 0 || this.batches.length > 0;
  }

  /** Seals, then takes the oldest batches of at most `maxRows` rows (whole batches) for a report. */
  take(maxRows: number): RowBatch[] {
    this.seal();
    return this.batches.splice(0, batchesWithin(this.batches, 0, maxRows));
  }
}
