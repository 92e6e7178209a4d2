import { z } from 'zod';
import { isoTime } from './usage';

/** How a connection (a tunnel, or one forwarded HTTP request) came in. */
export const CONNECTION_PROTOCOLS = ['http', 'connect', 'socks5'] as const;
export type ConnectionProtocol = (typeof CONNECTION_PROTOCOLS)[number];

/**
 * How a connection ended. `ok`: it ran and ended normally; `refused`: we (or the upstream) said no
 * before the target was reached; `target_unreachable`: the target did not answer or refused;
 * `upstream_failed`: the upstream provider failed; `cut_off`: the balance or a limit ran out;
 * `client_closed`: the client hung up first; `timeout`: idle or a head that never came;
 * `upstream_unavailable`: every pool serving the line's country was out of traffic (dry);
 * `rotated`: its owner asked for a new IP for its line (POST /api/lines/rotate), which closes it.
 */
export const CONNECTION_OUTCOMES = [
  'ok',
  'refused',
  'target_unreachable',
  'upstream_failed',
  'cut_off',
  'client_closed',
  'timeout',
  'blocked',
  'upstream_unavailable',
  'rotated',
] as const;
export type ConnectionOutcome = (typeof CONNECTION_OUTCOMES)[number];

/** Outcomes of a connection that never reached its target: always billed 0 bytes. */
export const UNBILLED_OUTCOMES: ReadonlySet<ConnectionOutcome> = new Set([
  'refused',
  'target_unreachable',
  'upstream_failed',
  'blocked',
  'upstream_unavailable',
]);

/** At most this many connections per page of the log. */
export const CONNECTIONS_MAX_PAGE = 500;
/** The longest range one CSV export covers. */
export const CONNECTIONS_MAX_CSV_DAYS = 31;

/**
 * A record of the connection log as the API answers it (the user's and the admin's alike) and as
 * its CSV columns go, in order (the header names are these keys): the one list of the answered
 * row. The server's reads select each from `connection_log` by its name, so a column added here
 * (and to the table by a migration) is answered, exported and signed in statements.
 */
export const CONNECTION_CSV_COLUMNS = [
  'id',
  'startedAt',
  'endedAt',
  'protocol',
  'target',
  'proxyUserId',
  'proxyAccountId',
  'country',
  'state',
  'city',
  'session',
  'zip',
  'asn',
  'bytesUp',
  'bytesDown',
  'billedBytes',
  'outcome',
  'reason',
  'connectMs',
] as const;
export type ConnectionRowColumn = (typeof CONNECTION_CSV_COLUMNS)[number];

/**
 * The columns of a signed daily statement's CSV (its connectionsDigest covers those bytes): the
 * log's columns when statements began, kept so, so that a statement signed before a column was
 * added still matches the CSV downloaded for its day.
 */
export const STATEMENT_CSV_COLUMNS = CONNECTION_CSV_COLUMNS.filter((c) => c !== 'connectMs');

/**
 * One record as answered: times ISO 8601, byte counts decimal strings; `connectMs` milliseconds
 * from the client's request to the target (or upstream) accepting, null when it never got there.
 */
export type ConnectionRow = { [K in ConnectionRowColumn]: K extends 'outcome' ? ConnectionOutcome : K extends 'connectMs' ? number | null : string };

/** A record's CSV fields, in the order of `columns` (CONNECTION_CSV_COLUMNS); a missing connectMs is ''. */
export function connectionCsvRecord(row: ConnectionRow, columns: readonly ConnectionRowColumn[] = CONNECTION_CSV_COLUMNS): string[] {
  return columns.map((c) => String(row[c] ?? ''));
}

// Loose on purpose: a report is refused whole when one field fails, and that would cost its usage.
const code = z.string().max(64);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** The address the gateway's outbound connection left from (direct egress); '' when unknown (via an upstream, or never connected). */
const exitIp = z.string().max(64);
/**
 * The pool upstream the connection went through ('' for direct egress, the default upstream, or
 * none reached): what reconciliation sums per upstream and day. The last column, and optional, so
 * that a gateway of the version before it (rows without it) is still stored during an upgrade.
 */
const upstreamId = z.string().max(64).optional();
/**
 * The line's ZIP (`~z`) and ASN (`~a`), '' when it has none: the last fields of a session's entry
 * and of a record, and optional, so that a gateway of the version before them is still stored.
 */
const targeting = z.string().max(16).optional();
/** The longest connect time a record holds (a day): a longer one is stored as this. */
export const CONNECT_MS_MAX = 86_400_000;
/** Milliseconds from the client's request to the target (or upstream) accepting; after zip and asn, optional as they are. */
const connectedMs = z.number().int().min(0).max(CONNECT_MS_MAX);
/** A time before the year 9000: its day names a partition (YYYY-MM-DD), and start + duration stays a time PostgreSQL stores. */
const epochMs = z
  .number()
  .int()
  .min(0)
  .max(Date.UTC(9000, 0, 1) - 1);

/** One connection as the gateway reports it (with the usage report that bills its bytes). */
export const gatewayConnectionRecord = z.object({
  id: z.uuid(),
  startedAt: epochMs,
  endedAt: epochMs,
  protocol: z.enum(CONNECTION_PROTOCOLS),
  /** host:port as the client asked; never a path or a query. */
  target: z.string().max(300),
  /** '' for a password-less (IP allow-list) connection. */
  proxyUserId: z.string().max(64),
  proxyAccountId: z.uuid(),
  country: code,
  state: code,
  city: code,
  /** The sticky session token, or `rotating`. */
  session: z.string().max(64),
  bytesUp: count,
  bytesDown: count,
  billedBytes: count,
  outcome: z.enum(CONNECTION_OUTCOMES),
  reason: z.string().max(300),
  exitIp: exitIp.default(''),
  upstreamId,
  zip: targeting,
  asn: targeting,
  /** Absent when it never reached a target. */
  connectMs: connectedMs.optional(),
});
export type GatewayConnectionRecord = z.infer<typeof gatewayConnectionRecord>;

/**
 * A record as the gateway writes, journals and reports it (gateway.report's `rows`): the values of
 * gatewayConnectionRecord in its fields' order (the tuple below lists them so), without the names, which were half of every record's bytes
 * (the gateway makes one per forwarded request, thousands a second).
 */
export const CONNECTION_ROW_FIELDS = Object.keys(gatewayConnectionRecord.shape) as ReadonlyArray<keyof GatewayConnectionRecord>;

const f = gatewayConnectionRecord.shape;
/** What every connection of a session shares, in their order in a row with every field (gatewayConnectionTuple). */
const SESSION_FIELDS = [f.proxyUserId, f.proxyAccountId, f.country, f.state, f.city, f.session] as const;
/** A row as checked on arrival: the server stores the values as they are (no object per row: thousands a second). */
export const gatewayConnectionTuple = z.tuple([
  f.id,
  f.startedAt,
  f.endedAt,
  f.protocol,
  f.target,
  ...SESSION_FIELDS,
  f.bytesUp,
  f.bytesDown,
  f.billedBytes,
  f.outcome,
  f.reason,
  exitIp,
  upstreamId,
  targeting,
  targeting,
  connectedMs.optional(),
]);
export type ConnectionTuple = z.output<typeof gatewayConnectionTuple>;

/** A row as a record with named fields (an earlier journal's records, tests). */
export const gatewayConnectionRow = gatewayConnectionTuple.transform(
  (row): GatewayConnectionRecord => Object.fromEntries(CONNECTION_ROW_FIELDS.map((k, i) => [k, row[i]])) as GatewayConnectionRecord,
);
export type GatewayConnectionRowInput = z.input<typeof gatewayConnectionRow>;

/** The row of a record (the inverse of gatewayConnectionRow's transform). */
export function connectionRowOf(r: GatewayConnectionRecord): GatewayConnectionRowInput {
  // Missing optional fields at the end are left out (zip, asn of most lines); one before them is ''
  // (JSON would carry undefined as null).
  return withoutMissingTail(
    CONNECTION_ROW_FIELDS.map((k) => r[k]),
    CONNECTION_ROW_FIELDS.indexOf('zip'),
  ) as GatewayConnectionRowInput;
}

/** The values with the missing ones at the end from `from` on left out, and any other missing one ''. */
function withoutMissingTail(values: unknown[], from: number): unknown[] {
  while (values.length > from && values[values.length - 1] === undefined) values.pop();
  return values.map((v) => v ?? '');
}

/**
 * The compact form gateways write since their rows became most of a forwarded request's cost: a
 * session's fields (who, which account, where, which session) once per batch in `logSessions`,
 * and per connection only what differs, in `logRows`. The server makes the record's id (a report
 * is stored once per (gateway, seq), so a row needs none to be stored once) and its billed bytes.
 */
const sessionKey = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** A list of named entries (a compact row's columns, a session entry's fields): name, check, and more. */
type Spec = readonly (readonly [string, z.ZodType, ...unknown[]])[];
/** Each entry's position, by its name. */
type PositionsOf<T extends Spec> = { readonly [K in keyof T & `${number}` as T[K][0]]: K extends `${infer N extends number}` ? N : never };
const positionsOf = <T extends Spec>(spec: T) => Object.fromEntries(spec.map(([name], i) => [name, i])) as PositionsOf<T>;
/** The schemas of a spec's entries, as a tuple (a mapped type keeps a tuple only over a type parameter). */
type SchemasOf<T extends Spec> = { -readonly [K in keyof T]: T[K] extends readonly [string, infer S, ...unknown[]] ? S : never };

/**
 * A connection's id is made by its gateway when the connection starts, so that its first answer can
 * name it (X-ProxyHub-Connection): the gateway process's random run (20 hex digits, 74 random bits) and the
 * connection's number in that run (12 hex digits: 2^48 connections a run), 32 hex digits in all,
 * stored as the record's UUID (the same digits with the UUID's hyphens).
 */
export const CONNECTION_RUN_HEX = 20;
/** A run keeps a version 4 UUID's version and variant digits, so that every id it makes is a valid UUID. */
export const CONNECTION_RUN_RE = /^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{3}$/;
export const CONNECTION_SEQ_MAX = 2 ** 48 - 1;
/** The header's form of a connection id: 32 lowercase hex digits. */
export const CONNECTION_ID_RE = /^[0-9a-f]{32}$/;
export function connectionIdOf(run: string, seq: number): string {
  return `${run}${seq.toString(16).padStart(32 - CONNECTION_RUN_HEX, '0')}`;
}
/** The record's UUID of a connection id (header form), or of a UUID as given; null when it is neither. */
export function connectionUuidOf(id: string): string | null {
  const hex = id.toLowerCase().replace(/^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/, '$1$2$3$4$5');
  if (!CONNECTION_ID_RE.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A session's entry's fields, in their order in the entry: the one place they are named. The
 * gateway's writer builds an entry with logSessionEntry, and the journal, the server's insert and
 * the records made of rows read each field at its position (LOG_SESSION). `lineTest`: 1 for the
 * server's line test, billed 0.
 */
const LOG_SESSION_SPEC = [
  ['sessionKey', sessionKey],
  ['proxyUserId', f.proxyUserId],
  ['proxyAccountId', f.proxyAccountId],
  ['country', f.country],
  ['state', f.state],
  ['city', f.city],
  ['session', f.session],
  ['lineTest', z.union([z.literal(0), z.literal(1)])],
  // The gateway process's run (CONNECTION_RUN_HEX digits): with a row's seq, the record's id. Optional: older gateways.
  ['run', z.string().regex(CONNECTION_RUN_RE).optional()],
  ['zip', targeting],
  ['asn', targeting],
] as const;
type LogSessionSpec = typeof LOG_SESSION_SPEC;
export type LogSessionField = LogSessionSpec[number][0];
/** A session entry's fields' names in their order. */
export const LOG_SESSION_FIELDS: readonly LogSessionField[] = LOG_SESSION_SPEC.map(([name]) => name);
/** Each field's position in a session's entry. */
export const LOG_SESSION = positionsOf(LOG_SESSION_SPEC);
/** A session's entry as checked on arrival (LOG_SESSION_SPEC's fields in order). */
export const gatewayLogSession = z.tuple(LOG_SESSION_SPEC.map(([, schema]) => schema) as unknown as SchemasOf<LogSessionSpec>);
export type GatewayLogSession = z.output<typeof gatewayLogSession>;
/** A session's entry of named fields, in LOG_SESSION_FIELDS order. */
export function logSessionEntry(fields: { readonly [K in LogSessionField]: GatewayLogSession[(typeof LOG_SESSION)[K]] }): GatewayLogSession {
  // Trailing optional fields left out (zip, asn of most lines): the entry as a gateway before them wrote it.
  return withoutMissingTail(
    LOG_SESSION_FIELDS.map((name) => fields[name]),
    LOG_SESSION.zip,
  ) as GatewayLogSession;
}
/** The connect time: optional (gateways before it) and null (a connection that reached no target); at most a day, what an int column holds. */
const connectMs = connectedMs.nullable().optional();
/** A connection's length: up to a century, so that start + length is a time PostgreSQL can store. */
const durationMs = z
  .number()
  .int()
  .min(0)
  .max(100 * 366 * 86_400_000);

/**
 * The compact row's columns, in their order in a row: the one place they are named. The gateway's
 * row writer, the journal, the server's insert and the records made of rows take each column's
 * position from LOG_ROW, its check from here and (the server) its stored SQL type. Adding a column
 * is an entry here and a migration adding `connection_log`'s column (its name the entry's in
 * snake_case); the gateway's writer then fails to typecheck until it writes the value.
 * `stored`: how the server stores the value; startedAt, durationMs and sessionKey are read apart
 * (the start and end times, and the session's columns).
 */
const LOG_ROW_SPEC = [
  ['startedAt', f.startedAt, 'special'],
  ['durationMs', durationMs, 'special'],
  ['protocol', f.protocol, 'text'],
  ['target', f.target, 'text'],
  ['sessionKey', sessionKey, 'special'],
  ['bytesUp', f.bytesUp, 'bigint'],
  ['bytesDown', f.bytesDown, 'bigint'],
  ['outcome', f.outcome, 'text'],
  ['reason', f.reason, 'text'],
  ['exitIp', exitIp, 'text'],
  ['upstreamId', upstreamId, 'text'],
  // The connection's number in its gateway process's run: with the session's run, the record's id (connectionIdOf).
  ['seq', z.number().int().min(0).max(CONNECTION_SEQ_MAX).optional(), 'special'],
  // Milliseconds from the client's request to the target (or upstream) accepting; null when it never got there.
  ['connectMs', connectMs, 'integer'],
] as const;
type LogRowSpec = typeof LOG_ROW_SPEC;
export type LogRowColumn = LogRowSpec[number][0];
/** The columns' names in row order. */
export const LOG_ROW_COLUMNS: readonly LogRowColumn[] = LOG_ROW_SPEC.map(([name]) => name);
/** Each column's position in a row. */
export const LOG_ROW = positionsOf(LOG_ROW_SPEC);
/** How the server stores each column that is not read apart: its SQL type. */
export const LOG_ROW_STORED = Object.fromEntries(LOG_ROW_SPEC.map(([name, , stored]) => [name, stored])) as Record<LogRowColumn, LogRowStored>;
export type LogRowStored = 'special' | 'text' | 'bigint' | 'integer';

/** A compact row as checked on arrival (LOG_ROW_SPEC's columns in order): billed bytes are up + down, 0 for a line test. */
export const gatewayLogRow = z.tuple(LOG_ROW_SPEC.map(([, schema]) => schema) as unknown as SchemasOf<LogRowSpec>);
export type GatewayLogRow = z.output<typeof gatewayLogRow>;

/** The record a compact row and its session make (`id`: when the row has no id of its gateway's making). */
export function connectionOfLogRow(id: string, s: GatewayLogSession, r: GatewayLogRow): GatewayConnectionRecord {
  const run = s[LOG_SESSION.run];
  const seq = r[LOG_ROW.seq];
  if (run !== undefined && seq !== undefined) id = connectionUuidOf(connectionIdOf(run, seq)) ?? id;
  const bytesUp = r[LOG_ROW.bytesUp];
  const bytesDown = r[LOG_ROW.bytesDown];
  const startedAt = r[LOG_ROW.startedAt];
  const ms = r[LOG_ROW.connectMs];
  return {
    id,
    startedAt,
    endedAt: startedAt + r[LOG_ROW.durationMs],
    protocol: r[LOG_ROW.protocol],
    target: r[LOG_ROW.target],
    proxyUserId: s[LOG_SESSION.proxyUserId],
    proxyAccountId: s[LOG_SESSION.proxyAccountId],
    country: s[LOG_SESSION.country],
    state: s[LOG_SESSION.state],
    city: s[LOG_SESSION.city],
    session: s[LOG_SESSION.session],
    bytesUp,
    bytesDown,
    billedBytes: s[LOG_SESSION.lineTest] ? 0 : bytesUp + bytesDown,
    outcome: r[LOG_ROW.outcome],
    reason: r[LOG_ROW.reason],
    exitIp: r[LOG_ROW.exitIp],
    upstreamId: r[LOG_ROW.upstreamId] ?? '',
    ...(s[LOG_SESSION.zip] && { zip: s[LOG_SESSION.zip] }),
    ...(s[LOG_SESSION.asn] && { asn: s[LOG_SESSION.asn] }),
    ...(typeof ms === 'number' && { connectMs: ms }),
  };
}

/** The connection log of the signed-in user (or of a user, for the admin). */
export const connectionsInput = z
  .object({
    from: isoTime('From').optional(),
    to: isoTime('To').optional(),
    outcome: z.enum(CONNECTION_OUTCOMES, { error: `Outcome must be one of ${CONNECTION_OUTCOMES.join(', ')}` }).optional(),
    /** A host, or host:port, matched from its start. */
    target: z.string().max(300, { error: 'Target must be at most 300 characters' }).optional(),
    cursor: z.string().max(200, { error: 'The page cursor is not valid' }).optional(),
    pageSize: z.coerce
      .number({ error: 'Page size must be a number' })
      .int({ error: 'Page size must be a whole number' })
      .min(1, { error: 'Page size must be at least 1' })
      .max(CONNECTIONS_MAX_PAGE, { error: `Page size must be at most ${CONNECTIONS_MAX_PAGE}` })
      .optional(),
    /** REST only: `csv` answers the whole range (up to 31 days) as text/csv. */
    format: z.enum(['json', 'csv'], { error: 'Format must be json or csv' }).optional(),
  })
  .optional();
export type ConnectionsInput = z.infer<typeof connectionsInput>;

/** One record by its id: the X-ProxyHub-Connection form (32 hex digits) or the record's UUID. */
export const connectionInput = z.object({ id: z.string({ error: 'Connection id is required' }).max(64, { error: 'Connection not found' }) });
export type ConnectionInput = z.infer<typeof connectionInput>;

/** The admin's view of one user's log: the same filters. */
export const adminConnectionsInput = connectionsInput.unwrap().extend({ id: z.uuid({ error: 'User not found' }) });
export type AdminConnectionsInput = z.infer<typeof adminConnectionsInput>;

/** Most connections one abuse look-up answers (newest first). */
export const ABUSE_LOOKUP_MAX_ROWS = 1000;

/**
 * The abuse look-up: connections that hit a host (`target`: that host or any subdomain, any port),
 * or that left through an exit IP, in a time range (default: the whole log). One of the two is needed.
 */
export const abuseLookupInput = z
  .object({
    target: z
      .string({ error: 'Target must be a host name or address' })
      .trim()
      .toLowerCase()
      .max(253, { error: 'Target must be at most 253 characters' })
      .regex(/^[a-z0-9.:[\]_-]*$/, { error: 'Target must be a host name or address, without a scheme, port or path' })
      .optional(),
    from: isoTime('from').optional(),
    to: isoTime('to').optional(),
    exitIp: z
      .string({ error: 'Exit IP must be an IP address' })
      .trim()
      .max(64)
      .regex(/^[0-9a-fA-F.:]*$/, { error: 'Exit IP must be an IP address' })
      .optional(),
  })
  .refine((v) => !!v.target || !!v.exitIp, { error: 'Give a target or an exit IP' });
export type AbuseLookupInput = z.infer<typeof abuseLookupInput>;
