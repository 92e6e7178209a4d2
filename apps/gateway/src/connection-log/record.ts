/**
 * The connection log's record of one tunnel, SOCKS5 connection or forwarded HTTP request: started
 * when it opens (connectionStart) and written as a row when it ends (MeteredFlow.endRecord, then
 * ConnectionLog.add), never per chunk; the report outbox sends it with the usage that billed its bytes.
 */
import { randomBytes } from 'node:crypto';
import { CONNECT_MS_MAX, CONNECTION_RUN_HEX, connectionIdOf, type ConnectionOutcome, type ConnectionProtocol, type ProxyUsernameParts } from '@proxyhub/core';
import type { ProtocolName } from '../protocols/answers';
import type { Accepted, RefusalKind } from '../protocols/handshake';
import type { HostPort } from '../protocols/host';
import { ROTATED_REASON } from '../line-rotations';

/**
 * This process's run: random, so ids made by any gateway process of the fleet never meet; with a
 * connection's number in the run, the id of its record (made here when it starts, so that its first
 * answer can carry it, and stored by the server as the record's id).
 */
export const CONNECTION_RUN = runOf(randomBytes(CONNECTION_RUN_HEX / 2));
/** Random hex with a version 4 UUID's version digit (4) and variant digit (8-b) in place: every id of the run is a UUID. */
function runOf(random: Buffer): string {
  const hex = random.toString('hex');
  return `${hex.slice(0, 12)}4${hex.slice(13, 16)}${(8 | (random[8]! & 3)).toString(16)}${hex.slice(17)}`;
}
let lastSeq = 0;
/** The next connection's number in this run (from 1; 2^48 of them before a run could repeat one). */
export function nextConnectionSeq(): number {
  return ++lastSeq;
}
/** The id a connection's answers carry (X-ProxyHub-Connection), as GET /api/connections/:id takes it. */
export const connectionHeaderId = (seq: number) => connectionIdOf(CONNECTION_RUN, seq);

/** Where finished connections' records go (ConnectionLog); the meter holds none when the log is off. */
export interface RecordSink {
  add(start: RecordStart, up: number, down: number, outcome: ConnectionOutcome, reason: string): void;
}

/** A session's entry in the rows: its key, its JSON (gatewayLogSession) and the last batch that named it (row-writer.ts). */
export interface LogSession {
  readonly key: number;
  readonly json: Buffer;
  batch: number;
}

/**
 * Who a record is of: what the log reads of a login's session (authenticator.ts's Session is one),
 * declared here so that the log does not depend on the authenticator.
 */
export interface LoggedSession {
  readonly parts: ProxyUsernameParts;
  readonly account: { readonly id: string; readonly meter: { readonly records: RecordSink | null } };
  readonly lineTest?: boolean | undefined;
  logSession?: LogSession | undefined;
}

/**
 * The outcome a refusal gives its connection: the one table (a new refusal kind gets its row here).
 * Kinds before the target was reached are free (billed 0, see UNBILLED_OUTCOMES).
 */
export const OUTCOME_OF_REFUSAL: Record<RefusalKind, ConnectionOutcome> = {
  bad_request: 'refused',
  too_large: 'refused',
  no_method: 'refused',
  unsupported_command: 'refused',
  unsupported_address: 'refused',
  bad_target: 'refused',
  missing: 'refused',
  bad_username: 'refused',
  bad_credentials: 'refused',
  limited: 'refused',
  disabled: 'refused',
  bad_location: 'refused',
  address_not_allowed: 'refused',
  unavailable: 'refused',
  empty: 'refused',
  cap_reached: 'refused',
  expired: 'refused',
  too_many_connections: 'refused',
  blocked: 'blocked',
  forbidden: 'refused',
  dns: 'target_unreachable',
  refused: 'target_unreachable',
  unreachable: 'target_unreachable',
  net_unreachable: 'target_unreachable',
  timeout: 'timeout',
  upstream: 'upstream_failed',
  no_exit: 'upstream_unavailable',
};

/** The outcome of a connection the gateway closed, by why (anything but these: it was cut off). */
export function outcomeOfClose(reason: string): ConnectionOutcome {
  if (reason === 'idle timeout' || reason === 'request head timeout') return 'timeout';
  return reason === ROTATED_REASON ? 'rotated' : 'cut_off';
}

/** What is known when a connection (or a forwarded request) starts: every field always set (one shape for the row writer). */
export interface RecordStart {
  readonly startedAt: number;
  readonly protocol: ConnectionProtocol;
  readonly target: string;
  readonly session: LoggedSession;
  /** The flow's byte counts at the start (a keep-alive connection's earlier requests). */
  readonly baseUp: number;
  readonly baseDown: number;
  /** The outbound connection's local address once known (egress.ts); '' when unknown. */
  exitIp: string;
  /** The pool upstream that carried it once known (egress.ts); '' for direct egress or the default upstream. */
  upstreamId: string;
  /** Its number in this process's run: its record's id (connectionHeaderId). */
  readonly seq: number;
  /** Milliseconds from the client's request to the target (or upstream) accepting; null when it never got there. */
  readonly connectMs: number | null;
}

/**
 * The connect time of a request read at `requestedAt` whose target accepted now: never negative (a
 * clock stepped back) nor past what a report takes (one bad value would cost the report its records).
 */
export const connectMsSince = (requestedAt: number): number => Math.min(Math.max(Date.now() - requestedAt, 0), CONNECT_MS_MAX);

/** host:port, IPv6 literals in brackets; never a path or a query. */
export function targetOf(t: HostPort): string {
  const host = t.host.includes(':') && !t.host.startsWith('[') ? `[${t.host}]` : t.host;
  return `${host.toLowerCase()}:${t.port}`.slice(0, 300);
}

export function connectionStart(
  protocol: ConnectionProtocol,
  target: HostPort,
  session: LoggedSession,
  baseUp = 0,
  baseDown = 0,
  seq = nextConnectionSeq(),
  connectMs: number | null = null,
): RecordStart {
  return { startedAt: Date.now(), protocol, target: targetOf(target), session, baseUp, baseDown, exitIp: '', upstreamId: '', seq, connectMs };
}

/** The connection log's record of a connection that never relayed a byte (billed 0). */
export function recordUnrelayed(
  accepted: Accepted<LoggedSession>,
  protocol: ProtocolName,
  outcome: ConnectionOutcome,
  reason: string,
  seq = nextConnectionSeq(),
): void {
  const kind = accepted.forward ? 'http' : protocol === 'socks5' ? 'socks5' : 'connect';
  const start = connectionStart(kind, accepted.target, accepted.session, 0, 0, seq);
  accepted.session.account.meter.records?.add(start, 0, 0, outcome, reason);
}
