/**
 * Every refusal, as each protocol says it: an HTTP status with a one-line text body a person can
 * act on, or a SOCKS5 reply code (RFC 1928 section 6: not allowed by ruleset for what the account
 * may not do, host/network unreachable and refused for what the target did, general failure for
 * our own trouble).
 */
import type { Socket } from 'node:net';
import { serializeString } from 'structured-headers';
import type { Refusal, RefusalKind } from './handshake';
import { httpResponse } from './http';
import { SOCKS, socksReply } from './socks5';

export type ProtocolName = 'http' | 'socks5';

const HTTP_STATUS: Record<RefusalKind, number> = {
  bad_request: 400,
  too_large: 431,
  no_method: 400,
  unsupported_command: 405,
  unsupported_address: 400,
  bad_target: 400,
  missing: 407,
  bad_username: 407,
  bad_credentials: 407,
  limited: 429,
  disabled: 407,
  expired: 403,
  bad_location: 407,
  address_not_allowed: 407,
  unavailable: 503,
  empty: 402,
  cap_reached: 402,
  too_many_connections: 429,
  blocked: 403,
  forbidden: 403,
  dns: 502,
  refused: 502,
  unreachable: 502,
  net_unreachable: 502,
  upstream: 502,
  timeout: 504,
  no_exit: 503,
};

/**
 * The error type of RFC 9209 (the Proxy-Status field) that a program reads to tell "the proxy
 * refused me" from "no exit was available" from "the target is down": what the account may not do
 * is a denied request, our own trouble an internal error, a malformed request a request error.
 */
const PROXY_STATUS_ERROR: Record<RefusalKind, string> = {
  bad_request: 'http_request_error',
  too_large: 'http_request_error',
  no_method: 'http_request_error',
  unsupported_command: 'http_request_error',
  unsupported_address: 'http_request_error',
  bad_target: 'http_request_error',
  missing: 'http_request_denied',
  bad_username: 'http_request_denied',
  bad_credentials: 'http_request_denied',
  limited: 'http_request_denied',
  disabled: 'http_request_denied',
  expired: 'http_request_denied',
  bad_location: 'http_request_denied',
  address_not_allowed: 'http_request_denied',
  unavailable: 'proxy_internal_error',
  empty: 'http_request_denied',
  cap_reached: 'http_request_denied',
  too_many_connections: 'http_request_denied',
  blocked: 'http_request_denied',
  forbidden: 'http_request_denied',
  dns: 'dns_error',
  refused: 'connection_refused',
  unreachable: 'destination_ip_unroutable',
  net_unreachable: 'destination_ip_unroutable',
  upstream: 'destination_unavailable',
  timeout: 'connection_timeout',
  no_exit: 'destination_unavailable',
};

/**
 * `Proxy-Status: ProxyHub; error=<type>; details="<reason>"` (RFC 9209). The details are a
 * structured-field string, which holds printable ASCII only: anything else (a host name's or an
 * upstream's own characters) becomes `?`.
 */
export function proxyStatus(r: Refusal, text: string): string {
  return `ProxyHub; error=${PROXY_STATUS_ERROR[r.kind]}; details=${serializeString(text.replace(/[^\x20-\x7e]/g, '?'))}`;
}

/** The reply to a CONNECT request (RFC 1928 section 6); null: no reply fits, the connection is closed. */
const SOCKS_REP: Record<RefusalKind, number | null> = {
  bad_request: SOCKS.REP.GENERAL,
  too_large: null,
  no_method: null,
  unsupported_command: SOCKS.REP.CMD_UNSUPPORTED,
  unsupported_address: SOCKS.REP.ATYP_UNSUPPORTED,
  bad_target: SOCKS.REP.HOST_UNREACHABLE,
  missing: SOCKS.REP.NOT_ALLOWED,
  bad_username: SOCKS.REP.NOT_ALLOWED,
  bad_credentials: SOCKS.REP.NOT_ALLOWED,
  limited: SOCKS.REP.NOT_ALLOWED,
  disabled: SOCKS.REP.NOT_ALLOWED,
  expired: SOCKS.REP.NOT_ALLOWED,
  bad_location: SOCKS.REP.NOT_ALLOWED,
  address_not_allowed: SOCKS.REP.NOT_ALLOWED,
  unavailable: SOCKS.REP.GENERAL,
  empty: SOCKS.REP.NOT_ALLOWED,
  cap_reached: SOCKS.REP.NOT_ALLOWED,
  too_many_connections: SOCKS.REP.NOT_ALLOWED,
  blocked: SOCKS.REP.NOT_ALLOWED,
  forbidden: SOCKS.REP.NOT_ALLOWED,
  dns: SOCKS.REP.HOST_UNREACHABLE,
  refused: SOCKS.REP.REFUSED,
  unreachable: SOCKS.REP.HOST_UNREACHABLE,
  net_unreachable: SOCKS.REP.NET_UNREACHABLE,
  upstream: SOCKS.REP.GENERAL,
  timeout: SOCKS.REP.TTL_EXPIRED,
  no_exit: SOCKS.REP.GENERAL,
};

function socksAnswer(r: Refusal): Buffer | null {
  switch (r.phase) {
    // Before a method is agreed, the only answer there is: none of yours is acceptable.
    case 'greeting':
      return r.kind === 'no_method' ? SOCKS.NO_ACCEPTABLE : null;
    // A login that went wrong is a failure status (RFC 1929); a malformed one gets no answer.
    case 'login':
      return r.kind === 'bad_request' || r.kind === 'too_large' ? null : SOCKS.AUTH_FAIL;
    default: {
      const rep = SOCKS_REP[r.kind];
      return rep === null ? null : socksReply(rep);
    }
  }
}

/** What the answers may point people to. */
export interface AnswerContext {
  /** The web app's origin (PUBLIC_URL), no trailing slash. */
  publicUrl: string;
}

/** The HTTP body for a refusal: what happened and, where there is one, what to do about it. */
function httpText(r: Refusal, ctx: AnswerContext): string {
  switch (r.kind) {
    case 'empty':
      return `Out of data: top up at ${ctx.publicUrl}/topup`;
    case 'bad_credentials':
      return `${r.message}: copy them from ${ctx.publicUrl}/proxies`;
    case 'bad_username':
      return `${r.message} (expected <proxy user id>_<COUNTRY>_<minutes>_<TOKEN>; generate one at ${ctx.publicUrl}/proxies)`;
    case 'forbidden':
      return `Forbidden: ${r.message}; this proxy only connects to public internet addresses`;
    default:
      return r.message;
  }
}

/** One line: a message that reached here with a line break (a host name, an upstream's words) is flattened. */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ');

/** What the client is sent before the connection closes; null: it is closed without an answer. */
export function answerTo(protocol: ProtocolName, r: Refusal, ctx: AnswerContext): Buffer | null {
  if (protocol !== 'http') return socksAnswer(r);
  const text = oneLine(httpText(r, ctx));
  return httpResponse(HTTP_STATUS[r.kind], text, proxyStatus(r, text));
}

/** Refusals that are our side's trouble (the server, an upstream) are warnings; the rest is the client's business. */
export const refusalLogLevel = (r: Refusal): 'info' | 'warn' => (r.kind === 'unavailable' || r.kind === 'upstream' || r.kind === 'no_exit' ? 'warn' : 'info');

/**
 * Sends a refusal's answer and ends the connection (no answer: it is closed at once). What the
 * client still sends is drained and dropped; the handshake deadline ends stragglers.
 */
export function endWith(socket: Socket, answer: Buffer | null): void {
  if (!answer || socket.destroyed) {
    socket.destroy();
    return;
  }
  socket.end(answer);
  socket.on('data', () => undefined);
  socket.resume();
}
