/**
 * The connection log's reads: a user's pages (newest first, by cursor), the whole range as CSV
 * (the same bytes a statement signs), one account's records, and the usage panel's breakdowns.
 * The rows are written by store.ts.
 */
import { stringify } from 'csv-stringify/sync';
import { and, asc, desc, eq, gte, like, lt, or, sql, type SQL } from 'drizzle-orm';
import {
  CONNECTION_CSV_COLUMNS,
  CONNECTIONS_MAX_CSV_DAYS,
  connectionCsvRecord,
  connectionUuidOf,
  DomainError,
  parseIsoTime,
  type ConnectionOutcome,
  type ConnectionRow,
  type ConnectionRowColumn,
  type ConnectionsInput,
} from '@proxyhub/core';
import { connectionLog, type DbOrTx } from '@proxyhub/db';
import { CONNECTION_LOG_DAYS, DAY_MS, rowsOf } from './days';

/** A LIKE pattern's literal part. */
export function likeLiteral(s: string): string {
  return s.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/**
 * The log's rows as CSV text, the columns in that order: the one builder of GET /api/connections?format=csv
 * and of a statement's connections (whose SHA-256 the statement signs), so both are the same bytes.
 */
export function connectionsCsvText(rows: readonly ConnectionRow[], columns: readonly ConnectionRowColumn[] = CONNECTION_CSV_COLUMNS): string {
  return stringify(
    rows.map((r) => connectionCsvRecord(r, columns)),
    { header: true, columns: [...columns] },
  );
}

export function range(input: Pick<NonNullable<ConnectionsInput>, 'from' | 'to'> | undefined, csv: boolean): { from: Date; to: Date } {
  const to = input?.to ? parseIsoTime(input.to) : new Date();
  const from = input?.from ? parseIsoTime(input.from) : new Date(to.getTime() - CONNECTION_LOG_DAYS * DAY_MS);
  if (from > to) throw new DomainError('BAD_REQUEST', 'The start must not be after the end');
  if (csv && to.getTime() - from.getTime() > CONNECTIONS_MAX_CSV_DAYS * DAY_MS) {
    throw new DomainError('BAD_REQUEST', `from and to must be at most ${CONNECTIONS_MAX_CSV_DAYS} days apart for format=csv`);
  }
  return { from, to };
}

function encodeCursor(startedAt: Date, id: string): string {
  return Buffer.from(`${startedAt.toISOString()}|${id}`).toString('base64url');
}

function decodeCursor(cursor: string): { startedAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const startedAt = new Date(at ?? '');
  if (!id || !/^[0-9a-f-]{36}$/.test(id) || Number.isNaN(startedAt.getTime())) throw new DomainError('BAD_REQUEST', 'The page cursor is not valid');
  return { startedAt, id };
}

/** The answered row's columns (core's CONNECTION_CSV_COLUMNS), each read from the table's column of its name. */
const columns = Object.fromEntries(CONNECTION_CSV_COLUMNS.map((c) => [c, connectionLog[c]])) as {
  [K in ConnectionRowColumn]: (typeof connectionLog)[K];
};

type Selected = { [K in ConnectionRowColumn]: (typeof columns)[K]['_']['data'] | ((typeof columns)[K]['_']['notNull'] extends true ? never : null) };

/** A value as answered: a time in ISO 8601, a byte count as a decimal string, text as it is. */
const answered = (v: unknown) => (v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? String(v) : v);

function toRow(r: Selected): ConnectionRow {
  const row: Record<string, unknown> = {};
  for (const c of CONNECTION_CSV_COLUMNS) row[c] = answered(r[c]);
  return row as ConnectionRow;
}

/** The target filter: a host or host:port, matched from its start. */
const targetPattern = (target: string) => `${likeLiteral(target.toLowerCase())}%`;
const targetPrefix = (target: string) => like(connectionLog.target, targetPattern(target));

function filters(
  userId: string,
  input: ConnectionsInput,
  from: Date,
  to: Date,
  target: SQL | undefined = input?.target ? targetPrefix(input.target) : undefined,
) {
  return and(
    eq(connectionLog.userId, userId),
    gte(connectionLog.startedAt, from),
    lt(connectionLog.startedAt, to),
    input?.outcome ? eq(connectionLog.outcome, input.outcome) : undefined,
    target,
  );
}

/** A target filter matching at most this many distinct targets is read target by target (see listConnections). */
const TARGETS_READ_APART = 8;

/** A page of a user's connections, newest first. */
export async function listConnections(
  db: DbOrTx,
  userId: string,
  input: ConnectionsInput,
): Promise<{ connections: ConnectionRow[]; nextCursor: string | null }> {
  const { from, to } = range(input, false);
  const pageSize = input?.pageSize ?? 100;
  const c = input?.cursor ? decodeCursor(input.cursor) : null;
  const after = c ? or(lt(connectionLog.startedAt, c.startedAt), and(eq(connectionLog.startedAt, c.startedAt), lt(connectionLog.id, c.id))) : undefined;
  const page = (target?: SQL) =>
    db
      .select(columns)
      .from(connectionLog)
      .where(and(filters(userId, input, from, to, target), after))
      .orderBy(desc(connectionLog.startedAt), desc(connectionLog.id))
      .limit(pageSize + 1);
  // A target prefix matches a range of the (user, target, time) index, which is in time order only
  // for one target: newest first over a range means sorting every match, and reading the user's
  // newest rows until enough match (the planner's other choice) reads them all when the matches are
  // older than a burst to another host (a month's page took 110-180 ms so in pnpm bench:connections).
  // With a few distinct targets, each is read newest first on its own and the pages merged.
  const targets = input?.target ? await targetsMatching(db, userId, input.target, from, to) : null;
  const rows =
    targets && targets.length <= TARGETS_READ_APART
      ? (await Promise.all(targets.map((t) => page(eq(connectionLog.target, t)))))
          .flat()
          .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
          .slice(0, pageSize + 1)
      : await page();
  const more = rows.length > pageSize;
  const shown = rows.slice(0, pageSize);
  const last = shown.at(-1);
  return { connections: shown.map(toRow), nextCursor: more && last ? encodeCursor(last.startedAt, last.id) : null };
}

/**
 * The distinct targets of the user's records in [from, to) that start with `prefix`, in byte order,
 * up to one more than TARGETS_READ_APART: a skip scan of the (user, target, time) index, one probe
 * per target (the index's text_pattern_ops order is the `~<~` operator's).
 */
async function targetsMatching(db: DbOrTx, userId: string, prefix: string, from: Date, to: Date): Promise<string[]> {
  const pattern = targetPattern(prefix);
  const probe = (after: SQL) => sql`(select c.target from ${connectionLog} c
      where c.user_id = ${userId} and c.target like ${pattern} ${after} and c.started_at >= ${from.toISOString()}::timestamptz and c.started_at < ${to.toISOString()}::timestamptz
      order by c.target using ~<~ limit 1)`;
  const rows = await rowsOf<{ target: string }>(
    db,
    sql`with recursive t(target) as (
      ${probe(sql``)}
      union all
      select ${probe(sql`and c.target ~>~ t.target`)} from t where t.target is not null
    ) select target from t where target is not null limit ${TARGETS_READ_APART + 1}`,
  );
  return rows.map((r) => r.target);
}

/** The whole range (at most 31 days) for format=csv, newest first. */
export async function allConnections(db: DbOrTx, userId: string, input: ConnectionsInput): Promise<ConnectionRow[]> {
  const { from, to } = range(input, true);
  const rows = await db
    .select(columns)
    .from(connectionLog)
    .where(filters(userId, input, from, to))
    .orderBy(desc(connectionLog.startedAt), desc(connectionLog.id));
  return rows.map(toRow);
}

/** One proxy account's records that started in [from, to), in id order (a statement's connections). */
export async function accountConnections(db: DbOrTx, userId: string, proxyAccountId: string, from: Date, to: Date): Promise<ConnectionRow[]> {
  const rows = await db
    .select(columns)
    .from(connectionLog)
    .where(
      and(
        eq(connectionLog.userId, userId),
        eq(connectionLog.proxyAccountId, proxyAccountId),
        gte(connectionLog.startedAt, from),
        lt(connectionLog.startedAt, to),
      ),
    )
    .orderBy(asc(connectionLog.id));
  return rows.map(toRow);
}

/**
 * How connections fared: the share that ended `ok` (0-1, 4 decimals) over all of them, and the
 * median connect time (ms) over those that reached their target (null when none did).
 */
export interface ConnectionQuality {
  okRate: number | null;
  p50ConnectMs: number | null;
}

export interface ConnectionBreakdown {
  byTarget: Array<{ host: string; bytes: string; connections: number } & ConnectionQuality>;
  byOutcome: Array<{ outcome: ConnectionOutcome; connections: number }>;
  /** By the line's country ('' for none), every country with records. */
  byCountry: Map<string, ConnectionQuality>;
}

/** The target without its port (an IPv6 literal keeps its brackets). */
const HOST_OF_TARGET = `regexp_replace(target, ':[0-9]+$', '')`;
/** The median of a group's values (connect times), in whole ms (numeric: halves round up; a float's would go to even). */
const P50_OF = (value: SQL) => sql`round(percentile_cont(0.5) within group (order by ${value})::numeric)::int`;
/** okRate of a group's counts, rounded to 4 decimals in SQL (numeric: exact halves). */
const OK_RATE = (ok: string, n: string) => `round(coalesce(${ok}, 0)::numeric / nullif(${n}, 0), 4)::float8`;

/**
 * The usage panel's view of the log over [from, to): the 100 hosts that took the most bytes with
 * their success rate and median connect time, connections by outcome, and the same quality by country.
 */
export async function connectionBreakdown(db: DbOrTx, userId: string, from: Date, to: Date): Promise<ConnectionBreakdown> {
  const inRange = and(eq(connectionLog.userId, userId), gte(connectionLog.startedAt, from), lt(connectionLog.startedAt, to));
  // One pass over the range, grouped by target, outcome and country (a few hundred groups), then by
  // host (a regular expression per group: per record it took 2.5 times as long on a month of
  // 1,000,000 records, pnpm bench:connections), by outcome and by country. A median cannot be made
  // of groups' figures, so each group keeps its records' connect times (one array, in the same pass):
  // a second read of the range's records for them, by a join to the top hosts' targets and by
  // country, took twice as long again (500,000 records on PostgreSQL 15).
  const rows = await rowsOf<{
    kind: 'host' | 'outcome' | 'country';
    key: string;
    bytes: string | null;
    connections: number;
    ok_rate: number | null;
    p50: number | null;
  }>(
    db,
    sql`with g as (
      select ${connectionLog.target} as target, ${connectionLog.outcome} as outcome, ${connectionLog.country} as country,
        sum(${connectionLog.billedBytes}) as b, count(*) as n,
        array_agg(${connectionLog.connectMs}) filter (where ${connectionLog.connectMs} is not null) as ms
      from ${connectionLog}
      where ${inRange}
      group by 1, 2, 3
    ),
    h as (
      select ${sql.raw(HOST_OF_TARGET)} as host, sum(b)::text as bytes, sum(n)::int as connections,
        ${sql.raw(OK_RATE(`sum(n) filter (where outcome = 'ok')`, 'sum(n)'))} as ok_rate,
        row_number() over (order by sum(b) desc, ${sql.raw(HOST_OF_TARGET)}) as pos
      from g group by 1 order by pos limit 100
    ),
    mh as (
      select h.host, ${P50_OF(sql.raw('v'))} as p50
      from g join h on h.host = ${sql.raw(HOST_OF_TARGET.replace('target', 'g.target'))}, unnest(g.ms) as v
      group by 1
    ),
    mc as (select g.country, ${P50_OF(sql.raw('v'))} as p50 from g, unnest(g.ms) as v group by 1)
    select kind, key, bytes, connections, ok_rate, p50 from (
      (select 'host' as kind, h.host as key, h.bytes, h.connections, h.ok_rate, mh.p50, h.pos from h left join mh on mh.host = h.host)
      union all
      (select 'outcome', outcome, null, sum(n)::int, null, null, row_number() over (order by sum(n) desc, outcome) from g group by 2)
      union all
      (select 'country', gc.country, null, gc.n::int, gc.ok_rate, mc.p50, 0
        from (select country, sum(n) as n, ${sql.raw(OK_RATE(`sum(n) filter (where outcome = 'ok')`, 'sum(n)'))} as ok_rate from g group by 1) gc
        left join mc on mc.country = gc.country)
    ) u order by kind, pos, key`,
  );
  const quality = (r: (typeof rows)[number]): ConnectionQuality => ({
    okRate: r.ok_rate === null ? null : Number(r.ok_rate),
    p50ConnectMs: r.p50 === null ? null : Number(r.p50),
  });
  return {
    byTarget: rows.filter((r) => r.kind === 'host').map((r) => ({ host: r.key, bytes: String(r.bytes), connections: Number(r.connections), ...quality(r) })),
    byOutcome: rows.filter((r) => r.kind === 'outcome').map((r) => ({ outcome: r.key as ConnectionOutcome, connections: Number(r.connections) })),
    byCountry: new Map(rows.filter((r) => r.kind === 'country').map((r) => [r.key, quality(r)])),
  };
}

/**
 * Bytes (up + down, billed or not: a line test's and a refused tunnel's too) that went through one
 * pool upstream per UTC day, from the start of `from` to the end of `to` (epoch ms of day starts),
 * keyed by day (YYYY-MM-DD): what reconciliation holds against the provider's count.
 */
export async function upstreamBytesByDay(db: DbOrTx, upstreamId: string, fromDay: number, toDay: number): Promise<Map<string, bigint>> {
  const rows = await db
    .select({
      day: sql<string>`to_char(${connectionLog.startedAt} at time zone 'UTC', 'YYYY-MM-DD')`,
      bytes: sql<string>`sum(${connectionLog.bytesUp} + ${connectionLog.bytesDown})::text`,
    })
    .from(connectionLog)
    .where(
      and(eq(connectionLog.upstreamId, upstreamId), gte(connectionLog.startedAt, new Date(fromDay)), lt(connectionLog.startedAt, new Date(toDay + DAY_MS))),
    )
    .groupBy(sql`1`);
  return new Map(rows.map((r) => [r.day, BigInt(r.bytes)]));
}

/**
 * One pool upstream's connections per UTC day over the same days as upstreamBytesByDay (keyed by
 * day, YYYY-MM-DD), and over all of them (`total`): their success rate and median connect time.
 */
export async function upstreamQualityByDay(
  db: DbOrTx,
  upstreamId: string,
  fromDay: number,
  toDay: number,
): Promise<{ days: Map<string, ConnectionQuality>; total: ConnectionQuality }> {
  const day = sql`to_char(${connectionLog.startedAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows = await rowsOf<{ day: string | null; ok_rate: number | null; p50: number | null }>(
    db,
    sql`select ${day} as day, ${sql.raw(OK_RATE(`count(*) filter (where outcome = 'ok')`, 'count(*)'))} as ok_rate,
        ${P50_OF(sql`${connectionLog.connectMs}`)} as p50
      from ${connectionLog}
      where ${and(eq(connectionLog.upstreamId, upstreamId), gte(connectionLog.startedAt, new Date(fromDay)), lt(connectionLog.startedAt, new Date(toDay + DAY_MS)))}
      group by grouping sets ((${day}), ())`,
  );
  const quality = (r: (typeof rows)[number] | undefined): ConnectionQuality => ({
    okRate: r?.ok_rate == null ? null : Number(r.ok_rate),
    p50ConnectMs: r?.p50 == null ? null : Number(r.p50),
  });
  return {
    days: new Map(rows.filter((r) => r.day !== null).map((r) => [r.day!, quality(r)])),
    total: quality(rows.find((r) => r.day === null)),
  };
}

export const CONNECTION_NOT_FOUND = 'Connection not found';

/**
 * One of the user's records by its id: the form its gateway's answers carry (X-ProxyHub-Connection,
 * 32 hex digits) or the record's UUID. Another user's, an unknown one and one not reported yet are
 * all not found.
 */
export async function connectionById(db: DbOrTx, userId: string, id: string): Promise<{ connection: ConnectionRow }> {
  const uuid = connectionUuidOf(id);
  if (!uuid) throw new DomainError('NOT_FOUND', CONNECTION_NOT_FOUND);
  const [row] = await db
    .select(columns)
    .from(connectionLog)
    .where(and(eq(connectionLog.id, uuid), eq(connectionLog.userId, userId)))
    .limit(1);
  if (!row) throw new DomainError('NOT_FOUND', CONNECTION_NOT_FOUND);
  return { connection: toRow(row) };
}
