/**
 * The connection log's rows, written as the UTF-8 bytes of their JSON (CONNECTION_ROW_FIELDS'
 * order; the text JSON.stringify gives for the same values) straight into one buffer: no string,
 * array or id string per row. A forwarded request is a row, thousands a second: JSON.stringify of
 * each row's values, the join and encoding of each batch and a UUID string per record cost the
 * gateway about a tenth of its HTTP-forward throughput (`pnpm bench:connections`, docs/benchmarks.md).
 */
import { randomFillSync } from 'node:crypto';
import type { ConnectionOutcome } from '@proxyhub/core';
import { isRotating } from '@proxyhub/core';
import type { RecordStart, RowBatch } from './connection-record';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
/** Each byte's two hex digits, and after which of a UUID's 16 bytes a dash comes. */
const HEX_PAIRS = Buffer.from(Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0')).join(''));
const DASH_AFTER = Uint8Array.from({ length: 16 }, (_, i) => (i === 3 || i === 5 || i === 7 || i === 9 ? 1 : 0));
/** Longest reason kept in a row (characters). */
const REASON_CHARS = 300;

function reasonOf(s: RecordStart, reason: string): string {
  return (s.session.lineTest ? `line test, not billed${reason ? `: ${reason}` : ''}` : reason).slice(0, REASON_CHARS);
}

export class RowWriter {
  private buf = Buffer.allocUnsafeSlow(64 * 1024);
  private at = 0;
  /** Random bytes for record ids, drawn 4 KiB at a time. */
  private readonly random = Buffer.allocUnsafeSlow(4096);
  private randomAt = 4096;
  private rows = 0;

  /** Rows written since the last seal. */
  get count(): number {
    return this.rows;
  }

  /** A finished record's row: `up`/`down` the bytes written each way since the start, all billed but a line test's. */
  row(s: RecordStart, up: number, down: number, outcome: ConnectionOutcome, reason: string): void {
    const { parts, account } = s.session;
    const loc = parts.location;
    const country = loc?.country ?? '';
    const state = loc?.state ?? '';
    const city = loc?.city ?? '';
    const token = isRotating(parts) ? 'rotating' : parts.token;
    const why = s.session.lineTest || reason.length > REASON_CHARS ? reasonOf(s, reason) : reason;
    const chars = s.target.length + parts.proxyUserId.length + account.id.length + country.length + state.length + city.length + token.length;
    // At most 6 bytes a character (an escape), an id, six integers' digits, quotes and commas.
    this.room(6 * (chars + why.length + s.exitIp.length + 32) + 200);
    if (this.rows++) this.buf[this.at++] = COMMA;
    this.buf[this.at++] = 0x5b; // "["
    this.id();
    this.int(s.startedAt);
    this.int(Date.now());
    this.str(s.protocol);
    this.str(s.target);
    this.str(parts.proxyUserId);
    this.str(account.id);
    this.str(country);
    this.str(state);
    this.str(city);
    this.str(token);
    this.int(up);
    this.int(down);
    this.int(s.session.lineTest ? 0 : up + down);
    this.str(outcome);
    this.str(why);
    this.str(s.exitIp);
    this.buf[this.at - 1] = 0x5d; // the last value's comma becomes "]"
  }

  /** The rows written since the last seal as one batch (null if none); the writer starts over. */
  seal(): RowBatch | null {
    if (!this.rows) return null;
    // A copy of just the rows (Buffer.copy is a memmove; Buffer.from of a subarray copies byte by byte).
    const bytes = Buffer.allocUnsafeSlow(this.at);
    this.buf.copy(bytes, 0, 0, this.at);
    const batch = { bytes, count: this.rows };
    this.at = 0;
    this.rows = 0;
    return batch;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  /** A new record id, a random (version 4) UUID, in quotes and a comma. */
  private id(): void {
    if (this.randomAt + 16 > this.random.length) {
      randomFillSync(this.random);
      this.randomAt = 0;
    }
    const r = this.random;
    const from = this.randomAt;
    this.randomAt += 16;
    // Version 4, variant 10.
    r[from + 6] = (r[from + 6]! & 0x0f) | 0x40;
    r[from + 8] = (r[from + 8]! & 0x3f) | 0x80;
    const buf = this.buf;
    let at = this.at;
    buf[at++] = QUOTE;
    for (let i = 0; i < 16; i++) {
      const b = r[from + i]! << 1;
      buf[at++] = HEX_PAIRS[b]!;
      buf[at++] = HEX_PAIRS[b + 1]!;
      if (DASH_AFTER[i]) buf[at++] = 0x2d; // "-"
    }
    buf[at++] = QUOTE;
    buf[at++] = COMMA;
    this.at = at;
  }

  /** A JSON string and a comma: printable ASCII copied byte by byte, anything else as JSON.stringify writes it. */
  private str(s: string): void {
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

  /** A non-negative integer (bytes, milliseconds) and a comma, without making a string. */
  private int(n: number): void {
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
