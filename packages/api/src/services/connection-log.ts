/**
 * The connection log: one row per tunnel, SOCKS5 connection or forwarded HTTP request, stored with
 * the usage report that billed its bytes (so a report applied once stores its records once). The
 * table is partitioned by UTC day: a day's partition is made when its first rows arrive (and for
 * today and tomorrow by the daily job), and whole days are dropped after CONNECTION_LOG_DAYS.
 */
import { stringify } from 'csv-stringify/sync';
import { and, asc, desc, eq, gte, inArray, like, lt, or, sql, type SQL } from 'drizzle-orm';
import {
  CONNECTION_CSV_COLUMNS,
  CONNECTIONS_MAX_CSV_DAYS,
  connectionCsvRecord,
  DomainError,
  parseIsoTime,
  type ConnectionOutcome,
  type ConnectionRow,
  type ConnectionsInput,
  type GatewayConnectionRecord,
} from '@proxyhub/core';
import { connectionLog, proxyAccounts, type DbOrTx } from '@proxyhub/db';

export const CONNECTION_LOG_DAYS = 30;
const DAY_MS = 86_400_000;

/** Partitions known to exist, per database handle (creating one takes a lock on the whole table). */
const known = new WeakMap<object, Set<string>>();

function dayOf(ms: number): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

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

/** A LIKE pattern's literal part. */
export function likeLiteral(s: string): string {
  return s.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** Raw SQL's rows: PGlite answers `{ rows }`, postgres.js the rows themselves. */
async function rowsOf<T>(db: DbOrTx, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}

/** The days a report's records fall on that are still kept (older ones are not stored). */
export function keptDays(records: readonly GatewayConnectionRecord[], now: number, days: number): Set<string> {
  const oldest = dayOf(now - (days - 1) * DAY_MS);
  const out = new Set<string>();
  for (const r of records) {
    const d = dayOf(r.startedAt);
    if (d >= oldest) out.add(d);
  }
  return out;
}

/**
 * Stores a report's records (inside the report's transaction, after ensureConnectionPartitions for
 * keptDays). Records of unknown proxy accounts or of days already pruned are skipped.
 */
export async function storeConnections(tx: DbOrTx, gatewayId: string, records: readonly GatewayConnectionRecord[], days: Set<string>): Promise<number> {
  if (!records.length) return 0;
  const accountIds = [...new Set(records.map((r) => r.proxyAccountId))];
  const owners = await tx.select({ id: proxyAccounts.id, userId: proxyAccounts.userId }).from(proxyAccounts).where(inArray(proxyAccounts.id, accountIds));
  const ownerOf = new Map(owners.map((o) => [o.id, o.userId]));
  const rows: unknown[] = [];
  for (const r of records) {
    const userId = ownerOf.get(r.proxyAccountId);
    if (!userId || !days.has(dayOf(r.startedAt))) continue;
    rows.push({ ...r, userId });
  }
  if (!rows.length) return 0;
  // One statement with one JSON parameter: building a row-by-row INSERT cost the server ~130 µs of
  // CPU a record (the query builder), this ~15 (pnpm bench:connections). Epoch milliseconds become
  // timestamps exactly (integer arithmetic on an interval).
  const ms = (field: string) => sql.raw(`timestamptz 'epoch' + (r."${field}" * interval '1 millisecond')`);
  await tx.execute(sql`
    insert into ${connectionLog} (id, started_at, ended_at, user_id, proxy_account_id, proxy_user_id, protocol, target, country, state, city, session, bytes_up, bytes_down, billed_bytes, outcome, reason, gateway_id, exit_ip)
    select r."id", ${ms('startedAt')}, ${ms('endedAt')}, r."userId", r."proxyAccountId", r."proxyUserId", r."protocol", r."target", r."country", r."state", r."city", r."session",
      r."bytesUp", r."bytesDown", r."billedBytes", r."outcome", r."reason", ${gatewayId}, coalesce(r."exitIp", '')
    from json_to_recordset(${JSON.stringify(rows)}::json) as r("id" uuid, "startedAt" bigint, "endedAt" bigint, "userId" uuid, "proxyAccountId" uuid, "proxyUserId" text,
      "protocol" text, "target" text, "country" text, "state" text, "city" text, "session" text, "bytesUp" bigint, "bytesDown" bigint, "billedBytes" bigint, "outcome" text, "reason" text, "exitIp" text)
    on conflict do nothing`);
  return rows.length;
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

/**
 * The log's rows as CSV text, the columns in that order: the one builder of GET /api/connections?format=csv
 * and of a statement's connections (whose SHA-256 the statement signs), so both are the same bytes.
 */
export function connectionsCsvText(rows: readonly ConnectionRow[]): string {
  return stringify(rows.map(connectionCsvRecord), { header: true, columns: [...CONNECTION_CSV_COLUMNS] });
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

const columns = {
  id: connectionLog.id,
  startedAt: connectionLog.startedAt,
  endedAt: connectionLog.endedAt,
  protocol: connectionLog.protocol,
  target: connectionLog.target,
  proxyUserId: connectionLog.proxyUserId,
  proxyAccountId: connectionLog.proxyAccountId,
  country: connectionLog.country,
  state: connectionLog.state,
  city: connectionLog.city,
  session: connectionLog.session,
  bytesUp: connectionLog.bytesUp,
  bytesDown: connectionLog.bytesDown,
  billedBytes: connectionLog.billedBytes,
  outcome: connectionLog.outcome,
  reason: connectionLog.reason,
};

type Selected = { [K in keyof typeof columns]: (typeof columns)[K]['_']['data'] };

function toRow(r: Selected): ConnectionRow {
  return {
    ...r,
    startedAt: r.startedAt.toISOString(),
    endedAt: r.endedAt.toISOString(),
    bytesUp: String(r.bytesUp),
    bytesDown: String(r.bytesDown),
    billedBytes: String(r.billedBytes),
    outcome: r.outcome as ConnectionOutcome,
  };
}

function filters(userId: string, input: ConnectionsInput, from: Date, to: Date) {
  return and(
    eq(connectionLog.userId, userId),
    gte(connectionLog.startedAt, from),
    lt(connectionLog.startedAt, to),
    input?.outcome ? eq(connectionLog.outcome, input.outcome) : undefined,
    input?.target ? like(connectionLog.target, `${likeLiteral(input.target.toLowerCase())}%`) : undefined,
  );
}

/** A page of a user's connections, newest first. */
export async function listConnections(
  db: DbOrTx,
  userId: string,
  input: ConnectionsInput,
): Promise<{ connections: ConnectionRow[]; nextCursor: string | null }> {
  const { from, to } = range(input, false);
  const pageSize = input?.pageSize ?? 100;
  const c = input?.cursor ? decodeCursor(input.cursor) : null;
  const rows = await db
    .select(columns)
    .from(connectionLog)
    .where(
      and(
        filters(userId, input, from, to),
        c ? or(lt(connectionLog.startedAt, c.startedAt), and(eq(connectionLog.startedAt, c.startedAt), lt(connectionLog.id, c.id))) : undefined,
      ),
    )
    .orderBy(desc(connectionLog.startedAt), desc(connectionLog.id))
    .limit(pageSize + 1);
  const more = rows.length > pageSize;
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return { connections: page.map(toRow), nextCursor: more && last ? encodeCursor(last.startedAt, last.id) : null };
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

/** The usage panel's view of the log over [from, to): the 100 hosts that took the most bytes, and connections by outcome. */
export async function connectionBreakdown(
  db: DbOrTx,
  userId: string,
  from: Date,
  to: Date,
): Promise<{ byTarget: Array<{ host: string; bytes: string; connections: number }>; byOutcome: Array<{ outcome: ConnectionOutcome; connections: number }> }> {
  const where = and(eq(connectionLog.userId, userId), gte(connectionLog.startedAt, from), lt(connectionLog.startedAt, to));
  // The host without its port (an IPv6 literal keeps its brackets).
  const host = sql<string>`regexp_replace(${connectionLog.target}, ':[0-9]+$', '')`;
  const bytes = sql<string>`sum(${connectionLog.billedBytes})::text`;
  const count = sql<number>`count(*)::int`;
  const [targets, outcomes] = await Promise.all([
    db
      .select({ host, bytes, connections: count })
      .from(connectionLog)
      .where(where)
      .groupBy(host)
      .orderBy(desc(sql`sum(${connectionLog.billedBytes})`), host)
      .limit(100),
    db
      .select({ outcome: connectionLog.outcome, connections: count })
      .from(connectionLog)
      .where(where)
      .groupBy(connectionLog.outcome)
      .orderBy(desc(count), connectionLog.outcome),
  ]);
  return {
    byTarget: targets.map((t) => ({ host: t.host, bytes: String(t.bytes), connections: Number(t.connections) })),
    byOutcome: outcomes.map((o) => ({ outcome: o.outcome as ConnectionOutcome, connections: Number(o.connections) })),
  };
}
