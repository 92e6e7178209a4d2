/**
 * The shapes of a parsed HTTP request, apart from the code that parses them (http.ts) and frames
 * them (http-framing.ts), so that the handshake's types need neither: the protocol modules import
 * each other one way.
 */

/** A request head as read from the client. */
export interface HttpHead {
  method: string;
  target: string;
  version: string;
  /** Raw header lines (name, value) in order. */
  headers: Array<[string, string]>;
  /** Bytes of the head including the blank line. */
  length: number;
}

/** How a body is delimited: none, a byte count, chunked transfer coding, or the connection's end. */
export type Framing = { kind: 'none' } | { kind: 'length'; bytes: number } | { kind: 'chunked' } | { kind: 'close' };

export interface ForwardRequest {
  head: HttpHead;
  path: string;
  authority: string;
  body: Framing;
  /** The client closes after this request (HTTP/1.0 or `Connection: close`). */
  close: boolean;
  /** The Proxy-Authorization header as sent: the same one again reuses the login. */
  authorization: string | undefined;
  /** The target the request's `Host` header names (targetHost's form), checked by the policy like the URI's; '' when none. */
  hostHeader: string;
}
