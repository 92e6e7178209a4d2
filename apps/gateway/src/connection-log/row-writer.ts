/**
 * The connection log's rows, written as the UTF-8 bytes of their JSON straight into one buffer: no
 * string, array or id string per row. A forwarded request is a row, thousands a second. Rows are
 * compact (gatewayLogRow): what a session's connections share (who, which account, where, which
 * session) is written once per batch as the session's entry (gatewayLogSession) and named by its
 * key, the server makes the id and the billed bytes. Rows with every field, 200 bytes and more, cost
 * the gateway about a tenth of its HTTP-forward throughput in making, journaling and reporting them
 * (`pnpm bench:connections`, docs/benchmarks.md).
 */
import { isRotating, LOG_ROW_COLUMNS, logSessionEntry, type ConnectionOutcome, type LogRowColumn } from '@proxyhub/core';
import { CONNECTION_RUN, type LoggedSession, type LogSession, type RecordStart } from './record';
import type { RowBatch } from './row-batch';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COMMA_BYTES = Buffer.from(',');
/** Longest reason kept in a row (characters). */
const REASON_CHARS = 300;
/** Distinct sessions remembered by their fields; past it the memory starts over (keys are never reused). */
const MAX_SESSIONS = 100_000;

function reasonOf(s: RecordStart, reason: string): string {
  return (s.session.lineTest ? `line test, not billed${reason ? `: ${reason}` : ''}` : reason).slice(0, REASON_CHARS);
}

/** What a connection's end adds to its start, as the column writers read it: one object per writer, filled row after row. */
interface Finished {
  sessionKey: number;
  endedAt: number;
  up: number;
  down: number;
  outcome: ConnectionOutcome;
  reason: string;
}

/** How each column of a compact row is written: every column core names (LOG_ROW_COLUMNS), none twice. */
const COLUMNS: { readonly [K in LogRowColumn]: (w: RowWriter, s: RecordStart, r: Finished) => void } = {
  startedAt: (w, s) => w.int(s.startedAt),
  // Never negative (the server refuses a report with a negative count), even if the clock stepped back.
  durationMs: (w, s, r) => w.int(Math.max(r.endedAt - s.startedAt, 0)),
  protocol: (w, s) => w.str(s.protocol),
  target: (w, s) => w.str(s.target),
  sessionKey: (w, _s, r) => w.int(r.sessionKey),
  bytesUp: (w, _s, r) => w.int(r.up),
  bytesDown: (w, _s, r) => w.int(r.down),
  outcome: (w, _s, r) => w.str(r.outcome),
  reason: (w, _s, r) => w.str(r.reason),
  exitIp: (w, s) => w.str(s.exitIp),
  upstreamId: (w, s) => w.str(s.upstreamId),
  seq: (w, s) => w.int(s.seq),
  connectMs: (w, s) => (s.connectMs === null ? w.nil() : w.int(s.connectMs)),
};
/** The writers in the row's order. */
const WRITERS = LOG_ROW_COLUMNS.map((c) => COLUMNS[c]);

export class RowWriter {
  private buf = Buffer.allocUnsafeSlow(64 * 1024);
  private at = 0;
  private rows = 0;
  /** Sessions by their fields: the connections of one customer line share one entry. */
  private readonly sessions = new Map<string, LogSession>();
  /**
   * The last entry found for a username's parts (parsed once per username, authenticator.ts): a
   * rotating customer's every connection is a new login of the same line, found here without
   * building its fields' key again.
   */
  private readonly byParts = new WeakMap<object, { accountId: string; lineTest: boolean; entry: LogSession }>();
  private nextKey = 1;
  private batch = 1;
  /** The entries this batch names. */
  private named: Buffer[] = [];
  private readonly finished: Finished = { sessionKey: 0, endedAt: 0, up: 0, down: 0, outcome: 'ok', reason: '' };

  /** Rows written since the last seal. */
  get count(): number {
    return this.rows;
  }

  /** A finished record's row: `up`/`down` the bytes written each way since the start. */
  row(s: RecordStart, up: number, down: number, outcome: ConnectionOutcome, reason: string): void {
    const session = s.session.logSession ?? this.sessionOf(s.session);
    if (session.batch !== this.batch) {
      session.batch = this.batch;
      this.named.push(session.json);
    }
    const why = s.session.lineTest || reason.length > REASON_CHARS ? reasonOf(s, reason) : reason;
    // At most 6 bytes a character (an escape), the integers' digits, quotes and commas.
    this.room(6 * (s.target.length + why.length + s.exitIp.length + s.upstreamId.length + 32) + 24 * WRITERS.length);
    const r = this.finished;
    r.sessionKey = session.key;
    r.endedAt = Date.now();
    r.up = up;
    r.down = down;
    r.outcome = outcome;
    r.reason = why;
    if (this.rows++) this.buf[this.at++] = COMMA;
    this.buf[this.at++] = 0x5b; // "["
    for (const write of WRITERS) write(this, s, r);
    this.buf[this.at - 1] = 0x5d; // the last value's comma becomes "]"
  }

  /** The rows written since the last seal, with the entries of the sessions they name, as one batch (null if none); the writer starts over. */
  seal(): RowBatch | null {
    if (!this.rows) return null;
    // A copy of just the rows (Buffer.copy is a memmove; Buffer.from of a subarray copies byte by byte).
    const bytes = Buffer.allocUnsafeSlow(this.at);
    this.buf.copy(bytes, 0, 0, this.at);
    const sessions = Buffer.concat(this.named.flatMap((json, i) => (i ? [COMMA_BYTES, json] : [json])));
    const batch = { bytes, count: this.rows, sessions };
    this.at = 0;
    this.rows = 0;
    this.named = [];
    this.batch += 1;
    return batch;
  }

  /** The session's entry, found by its fields (a login's session is new, its line usually is not) and kept on the session. */
  private sessionOf(s: LoggedSession): LogSession {
    const { parts, account } = s;
    const lineTest = s.lineTest === true;
    const last = this.byParts.get(parts);
    // (An entry stays right after `sessions` starts over: its key is never reused, and a batch naming it carries its JSON.)
    if (last && last.accountId === account.id && last.lineTest === lineTest) {
      s.logSession = last.entry;
      return last.entry;
    }
    const loc = parts.location;
    const proxyUserId = parts.proxyUserId;
    const country = loc?.country ?? '';
    const state = loc?.state ?? '';
    const city = loc?.city ?? '';
    // Absent for most lines: their entries end at lineTest, as before these fields.
    const zip = loc?.zip || undefined;
    const asn = loc?.asn || undefined;
    const session = isRotating(parts) ? 'rotating' : parts.token;
    const id = `${lineTest ? 1 : 0}\0${proxyUserId}\0${account.id}\0${country}\0${state}\0${city}\0${session}\0${zip ?? ''}\0${asn ?? ''}`;
    let entry = this.sessions.get(id);
    if (!entry) {
      if (this.sessions.size >= MAX_SESSIONS) this.sessions.clear();
      const key = this.nextKey++;
      const fields = logSessionEntry({
        sessionKey: key,
        proxyUserId,
        proxyAccountId: account.id,
        country,
        state,
        city,
        session,
        lineTest: lineTest ? 1 : 0,
        run: CONNECTION_RUN,
        zip,
        asn,
      });
      entry = { key, json: Buffer.from(JSON.stringify(fields)), batch: 0 };
      this.sessions.set(id, entry);
    }
    this.byParts.set(parts, { accountId: account.id, lineTest, entry });
    s.logSession = entry;
    return entry;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  /** A JSON string and a comma: printable ASCII copied byte by byte, anything else as JSON.stringify writes it. */
  str(s: string): void {
    const buf = this.buf;
    const start = this.at;
    let at = start;
    buf[at++] = QUOTE;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) {
        this.at = start + this.buf.write(JSON.stringify(s), start, 'utf8');
        this.buf[this.at++] = COMMA;
        return;
      }
      buf[at++] = c;
    }
    buf[at++] = QUOTE;
    buf[at++] = COMMA;
    this.at = at;
  }

  /** JSON null and a comma. */
  nil(): void {
    this.at += this.buf.write('null,', this.at, 'latin1');
  }

  /** A non-negative integer (bytes, milliseconds) and a comma, without making a string. */
  int(n: number): void {
    if (n >= 0 && n < 1e9 && (n | 0) === n) {
      this.digits(n, 0);
    } else if (n >= 1e9 && n <= Number.MAX_SAFE_INTEGER && Math.floor(n) === n) {
      // Two int32 halves: the high digits, then the low nine zero-padded.
      const high = Math.floor(n / 1e9);
      this.digits(high, 0);
      this.digits(n - high * 1e9, 9);
    } else {
      this.at += this.buf.write(JSON.stringify(n), this.at, 'latin1');
    }
    this.buf[this.at++] = COMMA;
  }

  /** n (a non-negative int32 below 1e9) in decimal, zero-padded to `width`. */
  private digits(value: number, width: number): void {
    let n = value | 0;
    const len = Math.max(width, n < 10 ? 1 : n < 100 ? 2 : n < 1e3 ? 3 : n < 1e4 ? 4 : n < 1e5 ? 5 : n < 1e6 ? 6 : n < 1e7 ? 7 : n < 1e8 ? 8 : 9);
    const buf = this.buf;
    let i = this.at + len;
    this.at = i;
    for (let k = 0; k < len; k++) {
      const q = (n / 10) | 0;
      buf[--i] = 0x30 + n - q * 10;
      n = q;
    }
  }
}
