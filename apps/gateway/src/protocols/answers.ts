/** Every refusal, as each protocol says it: an HTTP status with a text body, or a SOCKS5 reply. */
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
  bad_location: 407,
  address_not_allowed: 407,
  unavailable: 503,
  empty: 402,
  forbidden: 403,
  dns: 502,
  refused: 502,
  unreachable: 502,
  upstream: 502,
  timeout: 504,
};

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
  bad_location: SOCKS.REP.NOT_ALLOWED,
  address_not_allowed: SOCKS.REP.NOT_ALLOWED,
  unavailable: SOCKS.REP.GENERAL,
  empty: SOCKS.REP.NOT_ALLOWED,
  forbidden: SOCKS.REP.NOT_ALLOWED,
  dns: SOCKS.REP.HOST_UNREACHABLE,
  refused: SOCKS.REP.REFUSED,
  unreachable: SOCKS.REP.NET_UNREACHABLE,
  upstream: SOCKS.REP.GENERAL,
  timeout: SOCKS.REP.TTL_EXPIRED,
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

/** What the client is sent before the connection closes; null: it is closed without an answer. */
export function answerTo(protocol: ProtocolName, r: Refusal): Buffer | null {
  return protocol === 'http' ? httpResponse(HTTP_STATUS[r.kind], r.message) : socksAnswer(r);
}
