/**
 * One forwarded request and its response, as http-forward.ts serves them on a kept connection:
 * what was sent (to send again on a retry), where each message ends, and the reading of the
 * origin's answer (interim responses passed on, the final one's framing, a response that is not
 * HTTP/1.x relayed until the origin closes). Bytes pass through unchanged; this only says where
 * they belong.
 */
import type { Session } from './authenticator';
import type { TargetSocket } from './egress';
import type { HostPort } from './protocols/host';
import { originRequestHead, type ForwardRequest } from './protocols/http';
import { BodyTracker, mayBeHttpResponse, parseResponseHead, responseCloses, responseFraming, type Framing } from './protocols/http-framing';
import { refusal, type Refusal } from './protocols/handshake';

/**
 * Client bytes read ahead while a request is served (pipelined requests): beyond this the client
 * is paused. Reading on meanwhile is how a client that goes away is noticed.
 */
export const READ_AHEAD_BYTES = 64 * 1024;

/**
 * A forward connection's phase (http-forward.ts). `head`: reading the next request head; `busy`: login, lease or connect under way; `body`: the
 * request (and its body) goes out, the response may start; `response`: the request is out, the
 * response comes; `closing`: nothing more is served.
 */
export type Phase = 'head' | 'busy' | 'body' | 'response' | 'closing';

const EMPTY = Buffer.alloc(0);
const CLOSE_DELIMITED: Framing = { kind: 'close' };
/** Sent again on a new connection when a kept one turns out closed before any answer (RFC 9110 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** The first request, as the handshake read it and the gateway opened its target. */
export interface FirstRequest {
  session: Session;
  target: HostPort;
  socket: TargetSocket;
  request: ForwardRequest;
  /** Client bytes after the first request's head. */
  leftover: Buffer;
  /** When its head was read (its connect time starts there). */
  requestedAt: number;
}

export interface Exchange {
  method: string;
  target: HostPort;
  /** As sent to the origin (sent again on a retry). */
  head: Buffer;
  body: BodyTracker;
  close: boolean;
  retryable: boolean;
  requestDone: boolean;
  /** Response head bytes until the head is whole (copied: reads may land in a shared buffer). */
  respHead: Buffer;
  respBody: BodyTracker | null;
  respStarted: boolean;
  respClose: boolean;
  respDone: boolean;
  targetEnded: boolean;
}

/** `keptConnection`: the origin connection answered a whole response before (only then is a retry worth it). */
export function newExchange(target: HostPort, request: ForwardRequest, keptConnection: boolean): Exchange {
  const body = new BodyTracker(request.body);
  return {
    method: request.head.method,
    target,
    head: originRequestHead(request.head, request.path, request.authority, request.close),
    body,
    close: request.close,
    retryable: keptConnection && body.done && IDEMPOTENT.has(request.head.method),
    requestDone: false,
    respHead: EMPTY,
    respBody: null,
    respStarted: false,
    respClose: false,
    respDone: false,
    targetEnded: false,
  };
}

/**
 * What a read of the origin's bytes came to: `more` (the response goes on), `done` (it is whole;
 * `spoiled`: the origin sent bytes after it), `broken` (its framing broke midway: only a cut is
 * left) or a refusal (nothing relayable: a 502 if the client has none of it yet).
 */
export type ResponseRead = { kind: 'more' } | { kind: 'done'; spoiled: boolean } | { kind: 'broken' } | Refusal;

/**
 * Reads `chunk` of the origin's answer to `ex`, handing what the client is to get to `send` in
 * order (`owned` false: the chunk lives in a shared read buffer, so what is kept is copied).
 */
export function readResponse(
  ex: Exchange,
  chunk: Buffer,
  owned: boolean,
  send: (bytes: Buffer, owned: boolean) => void,
  /**
   * A header line (with its CRLF) of ours for the final response's head, sent after the status line
   * by `sendWith` in place of `send` (in order, not billed: the origin's bytes are); `line` is asked only then.
   */
  headerLine: { line: () => Buffer; sendWith: (before: Buffer, ours: Buffer, rest: Buffer) => void } | null = null,
): ResponseRead {
  let off = 0;
  while (off < chunk.length && !ex.respBody?.done) {
    if (ex.respBody) {
      const n = ex.respBody.consume(chunk, off);
      // The origin broke its framing midway: the client cannot be told, only cut off.
      if (ex.respBody.error) return { kind: 'broken' };
      if (n) send(off === 0 && n === chunk.length ? chunk : chunk.subarray(off, off + n), owned);
      off += n;
      continue;
    }
    const rest = owned ? chunk.subarray(off) : Buffer.from(chunk.subarray(off));
    const buf = ex.respHead.length ? Buffer.concat([ex.respHead, rest]) : rest;
    off = chunk.length;
    if (!mayBeHttpResponse(buf)) {
      // Not HTTP/1.x: relayed as it comes until the origin closes, which ends the client connection.
      ex.respHead = EMPTY;
      ex.respBody = new BodyTracker(CLOSE_DELIMITED);
      ex.respClose = true;
      ex.respStarted = true;
      send(buf, true);
      break;
    }
    const parsed = parseResponseHead(buf);
    if (parsed === null) {
      ex.respHead = buf;
      break;
    }
    if (!parsed.ok) return parsed;
    const head = parsed.head;
    ex.respHead = EMPTY;
    if (head.status >= 200 || head.status === 101) {
      // 101 would switch protocols; requests go without Upgrade, so it is only relayed to the end.
      const framing = head.status === 101 ? CLOSE_DELIMITED : responseFraming(ex.method, head);
      if (!framing) return refusal('upstream', 'The origin sent a response without a readable length');
      ex.respBody = new BodyTracker(framing);
      ex.respClose = framing.kind === 'close' || responseCloses(head);
    }
    // An interim response (100 Continue) is passed on; the final one follows on the same connection.
    ex.respStarted = true;
    const extra = headerLine && head.status >= 200 ? headerLine.line() : null;
    if (extra?.length) {
      const statusEnd = buf.indexOf(0x0a) + 1;
      headerLine!.sendWith(buf.subarray(0, statusEnd), extra, buf.subarray(statusEnd, head.length));
    } else send(buf.subarray(0, head.length), true);
    chunk = buf;
    off = head.length;
    owned = true;
  }
  if (!ex.respBody?.done || ex.respDone) return { kind: 'more' };
  ex.respDone = true;
  return { kind: 'done', spoiled: off < chunk.length };
}
