/**
 * The connection log's store: one row per tunnel, SOCKS5 connection or forwarded HTTP request,
 * stored with the usage report that billed its bytes (so a report applied once stores its records
 * once). The table is partitioned by UTC day: a day's partition is made when its first rows arrive
 * (and for today and tomorrow by the daily job), and whole days are dropped after
 * CONNECTION_LOG_DAYS. Reads are in reads.ts.
 */
import { sql, type SQL } from 'drizzle-orm';
import {
  CONNECTION_ROW_FIELDS,
  CONNECTION_RUN_HEX,
  connectionRowOf,
  LOG_ROW,
  LOG_ROW_COLUMNS,
  LOG_ROW_STORED,
  LOG_SESSION,
  type ConnectionTuple,
  type GatewayLogRow,
  type GatewayLogSession,
  type GatewayReportInput,
  type LogRowStored,
} from '@proxyhub/core';
import { connectionLog, proxyAccounts, type DbOrTx } from '@proxyhub/db';
import { isUniqueViolation } from '../lib/db-errors';
import { CONNECTION_LOG_DAYS, DAY_MS, dayOf, rowsOf } from './days';

/** Partitions known to exist, per database handle (creating one takes a lock on the whole table). */
const known = new WeakMap<object, Set<string>>();

function partitionName(day: string): string {
  return `connection_log_${day.replaceAll('-', '')}`;
}

/** Makes the partitions for these UTC days (YYYY-MM-DD) unless they exist. */
export async function ensureConnectionPartitions(db: DbOrTx, days: Iterable<string>): Promise<void> {
  let have = known.get(db);
  if (!have) known.set(db, (have = new Set()));
  for (const day of days) {
    if (have.has(day)) continue;
    if (!/^\d{4}-\d\d-\d\d$/.test(day)) throw new Error(`not a day: ${day}`);
    const next = dayOf(Date.parse(`${day}T00:00:00Z`) + DAY_MS);
    try {
      await db.execute(
        sql.raw(
          `CREATE TABLE IF NOT EXISTS "${partitionName(day)}" PARTITION OF "connection_log" FOR VALUES FROM ('${day}T00:00:00Z') TO ('${next}T00:00:00Z')`,
        ),
      );
    } catch (err) {
      // Another report made it at the same moment: fine if it is there now.
      if (!(await partitionExists(db, day))) throw err;
    }
    have.add(day);
  }
}

async function partitionExists(db: DbOrTx, day: string): Promise<boolean> {
  return (await rowsOf<{ n: number }>(db, sql`select 1 as n from pg_class where relname = ${partitionName(day)}`)).length > 0;
}

/** Where a record's start is in a row (CONNECTION_ROW_FIELDS order). */
const STARTED_AT = CONNECTION_ROW_FIELDS.indexOf('startedAt');

/** A report's connection records: rows of named fields' values (older gateways) and compact rows with their sessions. */
export interface ReportConnections {
  rows: readonly ConnectionTuple[];
  logSessions: readonly GatewayLogSession[];
  logRows: readonly GatewayLogRow[];
}

export function reportConnections(input: Pick<GatewayReportInput, 'connections' | 'rows' | 'logSessions' | 'logRows'>): ReportConnections {
  const rows = input.connections?.length ? [...input.connections.map(connectionRowOf), ...(input.rows ?? [])] : (input.rows ?? []);
  return { rows, logSessions: input.logSessions ?? [], logRows: input.logRows ?? [] };
}

export function connectionCount(c: ReportConnections): number {
  return c.rows.length + c.logRows.length;
}

/**
 * The days a report's rows fall on that are still kept (rows of older days are not stored), the
 * oldest day kept, and the report's earliest start.
 */
export function reportDays(c: ReportConnections, now: number, keep: number): { days: Set<string>; oldest: string; earliest: number } {
  const oldest = Math.floor(now / DAY_MS) - (keep - 1);
  // Day numbers first: a date string per row cost the server microseconds a record.
  const numbers = new Set<number>();
  let earliest = Infinity;
  const add = (startedAt: number) => {
    if (startedAt < earliest) earliest = startedAt;
    const d = Math.floor(startedAt / DAY_MS);
    if (d >= oldest) numbers.add(d);
  };
  for (const r of c.rows) add(r[STARTED_AT] as number);
  for (const r of c.logRows) add(r[LOG_ROW.startedAt]);
  return { days: new Set([...numbers].map((d) => dayOf(d * DAY_MS))), oldest: dayOf(oldest * DAY_MS), earliest };
}

/**
 * Stores a report's records (inside the report's transaction, after ensureConnectionPartitions for
 * reportDays) and answers how many were stored. Records of unknown proxy accounts or of accounts no
 * user holds (a batch's accounts before they are claimed), of days before `oldestDay` (already
 * pruned), or of a session key the report does not name are skipped; a row whose id is stored
 * already is stored once.
 */
export async function storeConnections(
  tx: DbOrTx,
  gatewayId: string,
  c: ReportConnections,
  oldestDay: string,
  layout: LogRowLayout = LOG_ROW_LAYOUT,
): Promise<number> {
  const since = Date.parse(`${oldestDay}T00:00:00Z`);
  let stored = 0;
  if (c.logRows.length) stored += affectedRows(await tx.execute(insertLogRows(gatewayId, c, since, layout)));
  if (!c.rows.length) return stored;
  try {
    // First without ON CONFLICT (in a savepoint): its look-up in the primary key before each row's
    // insert cost PostgreSQL a tenth of its time here, and a repeated id is a gateway's fault.
    return stored + affectedRows(await tx.transaction((sp) => sp.execute(insertRows(gatewayId, c.rows, since, sql``))));
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return stored + affectedRows(await tx.execute(insertRows(gatewayId, c.rows, since, sql`on conflict do nothing`)));
  }
}

const INSERT_COLUMNS = sql`(id, started_at, ended_at, user_id, proxy_account_id, proxy_user_id, protocol, target, country, state, city, session, bytes_up, bytes_down, billed_bytes, outcome, reason, gateway_id, exit_ip, upstream_id, zip, asn, connect_ms)`;

/** A compact row's columns in order with how each is stored: core's (LOG_ROW_COLUMNS, LOG_ROW_STORED); a test gives one with a column added. */
export interface LogRowLayout {
  readonly columns: readonly string[];
  readonly stored: Readonly<Record<string, LogRowStored>>;
}
export const LOG_ROW_LAYOUT: LogRowLayout = { columns: LOG_ROW_COLUMNS, stored: LOG_ROW_STORED };

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);

/** A session entry's fields as the insert reads them, each at its position in core's entry (LOG_SESSION). */
const SESSION_SELECT = [
  `(v->>${LOG_SESSION.sessionKey})::bigint as key`,
  `v->>${LOG_SESSION.proxyUserId} as proxy_user_id`,
  `v->>${LOG_SESSION.country} as country`,
  `v->>${LOG_SESSION.state} as state`,
  `v->>${LOG_SESSION.city} as city`,
  `v->>${LOG_SESSION.session} as session`,
  `(v->>${LOG_SESSION.lineTest})::int = 1 as line_test`,
  `v->>${LOG_SESSION.run} as run`,
  // Missing from an older gateway's entries: ''.
  `coalesce(v->>${LOG_SESSION.zip}, '') as zip`,
  `coalesce(v->>${LOG_SESSION.asn}, '') as asn`,
].join(', ');

/**
 * Compact rows joined to their sessions (one per key: a session is named again in each batch that
 * uses it) and the sessions' owners, in one statement; ids are made here. The billed bytes are
 * up + down but a line test's (connectionOfLogRow is the same rule for a journal read back).
 * Each value is read at its column's position; the columns not read apart are stored as they are,
 * each in the table's column of its name, so a new one needs no change here.
 */
function insertLogRows(gatewayId: string, c: ReportConnections, since: number, layout: LogRowLayout): SQL {
  const sessions = new Map<number, GatewayLogSession>();
  for (const s of c.logSessions) if (!sessions.has(s[LOG_SESSION.sessionKey])) sessions.set(s[LOG_SESSION.sessionKey], s);
  const at = (column: string) => {
    const i = layout.columns.indexOf(column);
    if (i < 0) throw new Error(`connection log: no column ${column}`);
    return `(e->>${i})`;
  };
  const plain = layout.columns.filter((column) => layout.stored[column] !== 'special');
  const start = `${at('startedAt')}::bigint`;
  const ms = (expr: string) => `timestamptz 'epoch' + (${expr}) * interval '1 millisecond'`;
  const names = sql.raw(plain.map(snakeCase).join(', '));
  // A text column missing from a row (a gateway older than the column, during an upgrade) is ''; a number's is null.
  const value = (column: string) => (layout.stored[column] === 'text' ? `coalesce(${at(column)}, '')` : `${at(column)}::${layout.stored[column]}`);
  const values = sql.raw(plain.map(value).join(', '));
  return sql`
    with s as (
      select ${sql.raw(SESSION_SELECT)}, a.id as account_id, a.user_id
      from jsonb_array_elements(${JSON.stringify([...sessions.values()])}::jsonb) as v
      join ${proxyAccounts} a on a.id = ${sql.raw(`(v->>${LOG_SESSION.proxyAccountId})::uuid`)} and a.user_id is not null
    )
    insert into ${connectionLog} (id, started_at, ended_at, user_id, proxy_account_id, proxy_user_id, country, state, city, zip, asn, session, billed_bytes, gateway_id, ${names})
    select ${sql.raw(idOf(at('seq')))}, ${sql.raw(ms(start))}, ${sql.raw(ms(`${start} + ${at('durationMs')}::bigint`))},
      s.user_id, s.account_id, s.proxy_user_id, s.country, s.state, s.city, s.zip, s.asn, s.session,
      case when s.line_test then 0 else ${sql.raw(`${at('bytesUp')}::bigint + ${at('bytesDown')}::bigint`)} end, ${gatewayId}, ${values}
    from jsonb_array_elements(${JSON.stringify(c.logRows)}::jsonb) as e
    join s on s.key = ${sql.raw(`${at('sessionKey')}::bigint`)}
    where ${sql.raw(start)} >= ${since}`;
}

/**
 * A compact row's record id: the one its gateway made when the connection started (the session's
 * run and the row's seq, as connectionIdOf joins them, read as a UUID), else a new one (a gateway
 * before ids were made there).
 */
function idOf(seq: string): string {
  return `coalesce((s.run || lpad(to_hex(${seq}::bigint), ${32 - CONNECTION_RUN_HEX}, '0'))::uuid, gen_random_uuid())`;
}

/**
 * One statement with the rows as one jsonb parameter, the owner joined in: a row-by-row INSERT of
 * the query builder cost the server ~130 µs of CPU a record, json_to_recordset of named fields
 * PostgreSQL twice the parsing of these arrays (pnpm bench:connections). Epoch milliseconds become
 * timestamps exactly (integer arithmetic on an interval).
 */
function insertRows(gatewayId: string, rows: readonly ConnectionTuple[], since: number, onConflict: SQL): SQL {
  const col = (field: (typeof CONNECTION_ROW_FIELDS)[number], type: string) => sql.raw(`(e->>${CONNECTION_ROW_FIELDS.indexOf(field)})::${type}`);
  const ms = (field: 'startedAt' | 'endedAt') =>
    sql.raw(`timestamptz 'epoch' + (e->>${CONNECTION_ROW_FIELDS.indexOf(field)})::bigint * interval '1 millisecond'`);
  return sql`
    insert into ${connectionLog} ${INSERT_COLUMNS}
    select ${col('id', 'uuid')}, ${ms('startedAt')}, ${ms('endedAt')}, a.user_id, a.id, ${col('proxyUserId', 'text')}, ${col('protocol', 'text')}, ${col('target', 'text')},
      ${col('country', 'text')}, ${col('state', 'text')}, ${col('city', 'text')}, ${col('session', 'text')}, ${col('bytesUp', 'bigint')}, ${col('bytesDown', 'bigint')},
      ${col('billedBytes', 'bigint')}, ${col('outcome', 'text')}, ${col('reason', 'text')}, ${gatewayId}, coalesce(${col('exitIp', 'text')}, ''),
      coalesce(${col('upstreamId', 'text')}, ''), coalesce(${col('zip', 'text')}, ''), coalesce(${col('asn', 'text')}, ''), ${col('connectMs', 'integer')}
    from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) as e
    join ${proxyAccounts} a on a.id = ${col('proxyAccountId', 'uuid')} and a.user_id is not null
    where ${col('startedAt', 'bigint')} >= ${since}
    ${onConflict}`;
}

/** Rows a statement wrote: postgres.js answers `count`, PGlite `affectedRows`. */
function affectedRows(result: unknown): number {
  const r = result as { count?: number; affectedRows?: number };
  return Number(r.count ?? r.affectedRows ?? 0);
}

/** The daily job: partitions for today and tomorrow, and whole days older than `days` dropped. */
export async function maintainConnectionLog(db: DbOrTx, now = Date.now(), days = CONNECTION_LOG_DAYS): Promise<{ dropped: string[] }> {
  await ensureConnectionPartitions(db, [dayOf(now), dayOf(now + DAY_MS)]);
  const oldest = partitionName(dayOf(now - (days - 1) * DAY_MS));
  const parts = await rowsOf<{ name: string }>(
    db,
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent where p.relname = 'connection_log'`,
  );
  const dropped: string[] = [];
  for (const { name } of parts) {
    if (!/^connection_log_\d{8}$/.test(name) || name >= oldest) continue;
    await db.execute(sql.raw(`DROP TABLE IF EXISTS "${name}"`));
    known.get(db)?.delete(`${name.slice(15, 19)}-${name.slice(19, 21)}-${name.slice(21, 23)}`);
    dropped.push(name);
  }
  return { dropped: dropped.sort() };
}
