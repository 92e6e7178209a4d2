/**
 * The connection log's record of one tunnel, SOCKS5 connection or forwarded HTTP request: started
 * when it opens (connectionStart) and written as a row when it ends (MeteredFlow.endRecord, the
 * meter's RowWriter), never per chunk; the meter reports it with the usage that billed its bytes.
 */
import type { ConnectionOutcome, ConnectionProtocol, GatewayConnectionRecord } from '@proxyhub/core';
import { connectionRowOf } from '@proxyhub/core';
import type { Session } from './authenticator';
import type { ProtocolName } from './protocols/answers';
import type { Accepted, RefusalKind } from './protocols/handshake';
import type { HostPort } from './protocols/host';

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

/** What is known when a connection (or a forwarded request) starts: every field always set (one shape for the row writer). */
export interface RecordStart {
  readonly startedAt: number;
  readonly protocol: ConnectionProtocol;
  readonly target: string;
  readonly session: Session;
  /** The flow's byte counts at the start (a keep-alive connection's earlier requests). */
  readonly baseUp: number;
  readonly baseDown: number;
  /** The outbound connection's local address once known (egress.ts); '' when unknown. */
  exitIp: string;
}

/** host:port, IPv6 literals in brackets; never a path or a query. */
export function targetOf(t: HostPort): string {
  const host = t.host.includes(':') && !t.host.startsWith('[') ? `[${t.host}]` : t.host;
  return `${host.toLowerCase()}:${t.port}`.slice(0, 300);
}

export function connectionStart(protocol: ConnectionProtocol, target: HostPort, session: Session, baseUp = 0, baseDown = 0): RecordStart {
  return { startedAt: Date.now(), protocol, target: targetOf(target), session, baseUp, baseDown, exitIp: '' };
}

/** The connection log's record of a connection that never relayed a byte (billed 0). */
export function recordUnrelayed(accepted: Accepted<Session>, protocol: ProtocolName, outcome: ConnectionOutcome, reason: string): void {
  const kind = accepted.forward ? 'http' : protocol === 'socks5' ? 'socks5' : 'connect';
  const start = connectionStart(kind, accepted.target, accepted.session);
  accepted.session.account.meter.recordRow(start, 0, 0, outcome, reason);
}
