/**
 * Where an HTTP/1.1 message ends (RFC 9112 section 6), for keeping a client connection (and the
 * connection to the origin) open between requests. Reads untrusted bytes from both sides: every
 * length is bounded, and anything this cannot follow is an error, never a guess, so the gateway
 * and the origin never disagree about where one request or response ends and the next begins.
 * The bytes themselves pass through unchanged: a body is followed, not decoded or copied.
 */
import { refusal, type Refusal } from './handshake';
import type { Framing, HttpHead } from './http-message';

export type { Framing };

export const NO_BODY: Framing = { kind: 'none' };

/** A response head larger than this is refused (the origin's headers, cookies included). */
export const MAX_RESPONSE_HEAD_BYTES = 64 * 1024;
/** A chunk-size line with its extensions, and all trailer lines together. */
const MAX_CHUNK_LINE_BYTES = 4096;
const MAX_TRAILER_BYTES = 16 * 1024;
/** 12 hex digits: 256 TiB a chunk, well within a safe integer. */
const MAX_CHUNK_SIZE_DIGITS = 12;

const CR = 13;
const LF = 10;

/** Header lines (name, value) in order, as a request or response head holds them. */
export interface HeaderLines {
  headers: Array<[string, string]>;
}

/** The first value of a header (case-insensitive name). */
export function header(head: HeaderLines, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of head.headers) if (k.length === lower.length && k.toLowerCase() === lower) return v;
  return undefined;
}

/** Every value of a header, in order. */
export function headerValues(head: HeaderLines, name: string): string[] {
  const lower = name.toLowerCase();
  const out: string[] = [];
  for (const [k, v] of head.headers) if (k.length === lower.length && k.toLowerCase() === lower) out.push(v);
  return out;
}

/** Values of a list header (Connection, Transfer-Encoding) as lowercase tokens, in order. */
export function headerTokens(head: HeaderLines, name: string): string[] {
  const out: string[] = [];
  for (const v of headerValues(head, name)) {
    for (const t of v.split(',')) {
      const token = t.trim().toLowerCase();
      if (token) out.push(token);
    }
  }
  return out;
}

/** One Content-Length: repeated fields must agree; null when malformed. */
function contentLength(head: HeaderLines): number | null | undefined {
  const values = headerValues(head, 'content-length');
  if (!values.length) return undefined;
  let n: number | undefined;
  for (const v of values) {
    for (const part of v.split(',')) {
      const s = part.trim();
      if (!/^\d{1,15}$/.test(s)) return null;
      const m = Number(s);
      if (n !== undefined && m !== n) return null;
      n = m;
    }
  }
  return n ?? null;
}

/**
 * A request's body (section 6.3): chunked when the last transfer coding is chunked, else its
 * Content-Length, else none. A request carrying both, or a transfer coding that does not end in
 * chunked, cannot be delimited safely: refused (the origin might read it differently).
 */
export function requestFraming(head: HttpHead): Framing | Refusal {
  const te = headerTokens(head, 'transfer-encoding');
  const cl = contentLength(head);
  if (te.length) {
    if (te[te.length - 1] !== 'chunked') return refusal('bad_request', 'Unsupported Transfer-Encoding');
    if (cl !== undefined) return refusal('bad_request', 'Both Transfer-Encoding and Content-Length');
    return { kind: 'chunked' };
  }
  if (cl === null) return refusal('bad_request', 'Malformed Content-Length');
  return cl ? { kind: 'length', bytes: cl } : NO_BODY;
}

/** Whether the client closes after this request: HTTP/1.0, or `Connection: close` (either header). */
export function requestCloses(head: HttpHead): boolean {
  if (head.version !== 'HTTP/1.1') return true;
  return headerTokens(head, 'connection').includes('close') || headerTokens(head, 'proxy-connection').includes('close');
}

export interface ResponseHead extends HeaderLines {
  status: number;
  version: string;
  /** Bytes of the head including the blank line. */
  length: number;
}

const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A response head once the buffer holds a whole one; null while more bytes are needed. */
export function parseResponseHead(buf: Buffer): { ok: true; head: ResponseHead } | Refusal | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return buf.length > MAX_RESPONSE_HEAD_BYTES ? refusal('upstream', 'The origin sent an oversized response head') : null;
  if (end > MAX_RESPONSE_HEAD_BYTES) return refusal('upstream', 'The origin sent an oversized response head');
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const m = /^(HTTP\/1\.[01]) (\d{3})(?: [^\r\n]*)?$/.exec(lines[0]!);
  if (!m) return refusal('upstream', 'The origin sent a malformed status line');
  const headers: Array<[string, string]> = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const c = line.indexOf(':');
    if (c <= 0 || !TOKEN_RE.test(line.slice(0, c))) return refusal('upstream', 'The origin sent a malformed header line');
    headers.push([line.slice(0, c), line.slice(c + 1).trim()]);
  }
  return { ok: true, head: { status: Number(m[2]), version: m[1]!, headers, length: end + 4 } };
}

/** Whether bytes that start a response can still become `HTTP/1.`: anything else is not HTTP/1.x. */
export function mayBeHttpResponse(buf: Buffer): boolean {
  const n = Math.min(buf.length, 7);
  for (let i = 0; i < n; i++) if (buf[i] !== 'HTTP/1.'.charCodeAt(i)) return false;
  return true;
}

/**
 * A final response's body (section 6.3): none for HEAD, 204 and 304; chunked when the last
 * transfer coding is chunked, else the connection's end; else Content-Length; else the
 * connection's end. Null when the Content-Length cannot be read (the response cannot be delimited).
 */
export function responseFraming(method: string, head: ResponseHead): Framing | null {
  if (method === 'HEAD' || head.status === 204 || head.status === 304) return NO_BODY;
  const te = headerTokens(head, 'transfer-encoding');
  if (te.length) return te[te.length - 1] === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
  const cl = contentLength(head);
  if (cl === null) return null;
  if (cl === undefined) return { kind: 'close' };
  return cl ? { kind: 'length', bytes: cl } : NO_BODY;
}

/** Whether the origin closes after this response (HTTP/1.0 unless it said keep-alive, or `Connection: close`). */
export function responseCloses(head: ResponseHead): boolean {
  const tokens = headerTokens(head, 'connection');
  if (tokens.includes('close')) return true;
  return head.version !== 'HTTP/1.1' && !tokens.includes('keep-alive');
}

const enum S {
  Size,
  Ext,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  TrailerStart,
  Trailer,
  TrailerLf,
  EndLf,
  Done,
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

/**
 * Follows one body through the bytes it arrives in: `consume` says how many bytes from `from` on
 * belong to it, `done` when it is complete, `error` when the bytes break its framing. Data of a
 * chunked body is skipped by count, never scanned; only chunk-size lines and trailers are read.
 */
export class BodyTracker {
  done: boolean;
  error: string | null = null;
  private left: number;
  private state = S.Size;
  private size = 0;
  private digits = 0;
  private lineBytes = 0;
  private trailerBytes = 0;

  constructor(readonly framing: Framing) {
    this.done = framing.kind === 'none';
    this.left = framing.kind === 'length' ? framing.bytes : 0;
  }

  /** The connection ended: a body delimited by it is complete; any other is cut short. */
  ended(): void {
    if (this.framing.kind === 'close') this.done = true;
  }

  consume(buf: Buffer, from: number): number {
    if (this.done || this.error) return 0;
    switch (this.framing.kind) {
      case 'close':
        return buf.length - from;
      case 'length': {
        const n = Math.min(this.left, buf.length - from);
        this.left -= n;
        if (this.left === 0) this.done = true;
        return n;
      }
      case 'chunked':
        return this.chunked(buf, from);
      default:
        return 0;
    }
  }

  private fail(why: string, consumed: number): number {
    this.error = why;
    return consumed;
  }

  private chunked(buf: Buffer, from: number): number {
    const len = buf.length;
    let i = from;
    while (i < len) {
      switch (this.state) {
        case S.Data: {
          const n = Math.min(this.left, len - i);
          i += n;
          this.left -= n;
          if (this.left === 0) this.state = S.DataCr;
          break;
        }
        case S.Size: {
          const c = buf[i]!;
          const v = hexValue(c);
          if (v >= 0) {
            if (++this.digits > MAX_CHUNK_SIZE_DIGITS) return this.fail('chunk size too large', i - from);
            this.size = this.size * 16 + v;
          } else if (this.digits === 0) {
            return this.fail('malformed chunk size', i - from);
          } else if (c === CR) {
            this.state = S.SizeLf;
          } else if (c === 0x3b || c === 0x20 || c === 0x09) {
            // ";" starts an extension (whitespace may come before it): skipped to the line's end.
            this.state = S.Ext;
            this.lineBytes = 0;
          } else {
            return this.fail('malformed chunk size', i - from);
          }
          i++;
          break;
        }
        case S.Ext: {
          const c = buf[i]!;
          if (c === CR) this.state = S.SizeLf;
          else if (c === LF || ++this.lineBytes > MAX_CHUNK_LINE_BYTES) return this.fail('malformed chunk extension', i - from);
          i++;
          break;
        }
        case S.SizeLf:
          if (buf[i] !== LF) return this.fail('malformed chunk size line', i - from);
          i++;
          if (this.size === 0) this.state = S.TrailerStart;
          else {
            this.left = this.size;
            this.state = S.Data;
          }
          this.size = 0;
          this.digits = 0;
          break;
        case S.DataCr:
          if (buf[i] !== CR) return this.fail('chunk data longer than its size', i - from);
          i++;
          this.state = S.DataLf;
          break;
        case S.DataLf:
          if (buf[i] !== LF) return this.fail('chunk data longer than its size', i - from);
          i++;
          this.state = S.Size;
          break;
        case S.TrailerStart:
          if (buf[i] === CR) {
            i++;
            this.state = S.EndLf;
          } else this.state = S.Trailer;
          break;
        case S.Trailer: {
          const c = buf[i]!;
          if (c === CR) this.state = S.TrailerLf;
          else if (c === LF) return this.fail('malformed trailer', i - from);
          if (++this.trailerBytes > MAX_TRAILER_BYTES) return this.fail('trailers too large', i - from);
          i++;
          break;
        }
        case S.TrailerLf:
          if (buf[i] !== LF) return this.fail('malformed trailer', i - from);
          i++;
          this.state = S.TrailerStart;
          break;
        case S.EndLf:
          if (buf[i] !== LF) return this.fail('malformed last chunk', i - from);
          i++;
          this.state = S.Done;
          this.done = true;
          return i - from;
        default:
          return i - from;
      }
    }
    return i - from;
  }
}
