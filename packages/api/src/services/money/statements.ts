/**
 * Signed daily statements: per proxy account and UTC day with traffic, the day's sums and the
 * SHA-256 of the day's connection log as CSV, chained to the account's previous statement and
 * signed with Ed25519. What it protects: a customer (or their auditor) can check, with nothing but
 * our public key, that the usage we state for a day is what we said at the time, that the
 * connections listed add up to it, and that no past statement was rewritten (the chain).
 *
 * Canonical JSON is RFC 8785 (the `canonicalize` package): keys sorted at every level, no
 * whitespace; byte counts are decimal strings, so no number passes 2^53. Final statements are
 * stored as that exact text, so the hash the next one names never changes.
 */
import { createHash, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import { and, eq, gte, lt, lte, max, or, sql } from 'drizzle-orm';
import {
  DomainError,
  STATEMENT_ALGORITHM,
  STATEMENT_CSV_COLUMNS,
  STATEMENTS_MAX_DAYS,
  type Statement,
  type StatementConnectionsInput,
  type StatementCountry,
  type StatementsInput,
} from '@proxyhub/core';
import { parseStatementSigningKey } from '@proxyhub/core/node';
import { connectionLog, proxyAccounts, statements, type DbOrTx } from '@proxyhub/db';
import type { ApiConfig } from '../../config';
import { CONNECTION_LOG_DAYS } from '../connection-log/days';
import { accountConnections, connectionsCsvText } from '../connection-log/reads';
import { emitWebhookEvent } from '../notify/webhooks';

const DAY_MS = 86_400_000;
/**
 * A day's last reports arrive after midnight (gateways report every few seconds and replay their
 * journals after a restart): a day becomes final this long after it ends, provisional until then.
 */
export const STATEMENT_GRACE_MS = 10 * 60_000;

export interface StatementSigner {
  privateKey: KeyObject;
  publicKeyPem: string;
}

const signers = new WeakMap<ApiConfig, StatementSigner>();

/** The configured key (a key made for this process when none is: tests). */
export function statementSigner(config: ApiConfig): StatementSigner {
  let s = signers.get(config);
  if (!s) {
    const privateKey = config.statementSigningKey ? parseStatementSigningKey(config.statementSigningKey) : generateKeyPairSync('ed25519').privateKey;
    s = { privateKey, publicKeyPem: createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString() };
    signers.set(config, s);
  }
  return s;
}

export function statementKey(config: ApiConfig) {
  return { algorithm: STATEMENT_ALGORITHM, publicKey: statementSigner(config).publicKeyPem };
}

/** RFC 8785 canonical JSON of a statement (or of its fields without the signature). */
export function canonicalJson(value: object): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('not serialisable');
  return text;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** What the next statement's `previous` names: SHA-256 (hex) of the canonical JSON of the whole statement, signature included. */
export const statementHash = (s: Statement) => sha256(canonicalJson(s));

const dayOf = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
const startOf = (day: string) => new Date(`${day}T00:00:00Z`);
const nextDay = (day: string) => dayOf(startOf(day).getTime() + DAY_MS);
/** The first day that is not final yet at `now`: every earlier day is. */
const firstOpenDay = (now: number) => dayOf(now - STATEMENT_GRACE_MS);

interface Account {
  id: string;
  userId: string;
  proxyUserId: string;
}

/** One account's statement of one day, built from the log as it is now; its CSV is what the digest covers. */
async function buildStatement(db: DbOrTx, signer: StatementSigner, account: Account, day: string, previous: string | null, final: boolean) {
  const rows = await accountConnections(db, account.userId, account.id, startOf(day), startOf(nextDay(day)));
  const csv = connectionsCsvText(rows, STATEMENT_CSV_COLUMNS);
  let bytes = 0n;
  let billed = 0n;
  const countries = new Map<string, { bytes: bigint; billed: bigint; connections: number }>();
  for (const r of rows) {
    const b = BigInt(r.bytesUp) + BigInt(r.bytesDown);
    bytes += b;
    billed += BigInt(r.billedBytes);
    const c = countries.get(r.country) ?? { bytes: 0n, billed: 0n, connections: 0 };
    c.bytes += b;
    c.billed += BigInt(r.billedBytes);
    c.connections += 1;
    countries.set(r.country, c);
  }
  const byCountry: StatementCountry[] = [...countries]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([country, c]) => ({ country, bytes: String(c.bytes), billedBytes: String(c.billed), connections: c.connections }));
  const unsigned: Omit<Statement, 'signature'> = {
    account: { id: account.id, proxyUserId: account.proxyUserId },
    date: day,
    totals: { bytes: String(bytes), billedBytes: String(billed), connections: rows.length },
    byCountry,
    connectionsDigest: sha256(csv),
    previous,
    final,
  };
  const signature = sign(null, Buffer.from(canonicalJson(unsigned), 'utf8'), signer.privateKey).toString('base64');
  return { statement: { ...unsigned, signature } satisfies Statement, csv };
}

/** (account, day) pairs with records of the user over [fromDay, toDay), with the account's current proxy user id. */
async function trafficDays(db: DbOrTx, userId: string, fromDay: string, toDay: string) {
  const day = sql<string>`to_char(${connectionLog.startedAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .select({ id: connectionLog.proxyAccountId, day, proxyUserId: proxyAccounts.proxyUserId })
    .from(connectionLog)
    .innerJoin(proxyAccounts, eq(proxyAccounts.id, connectionLog.proxyAccountId))
    .where(and(eq(connectionLog.userId, userId), gte(connectionLog.startedAt, startOf(fromDay)), lt(connectionLog.startedAt, startOf(toDay))))
    .groupBy(connectionLog.proxyAccountId, day, proxyAccounts.proxyUserId);
  return rows
    .map((r) => ({ account: { id: r.id, userId, proxyUserId: r.proxyUserId }, day: r.day }))
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.account.proxyUserId < b.account.proxyUserId ? -1 : 1));
}

/** The latest stored statement of each of the user's accounts (before `beforeDay` when given). */
async function latestStored(db: DbOrTx, userId: string, beforeDay?: string): Promise<Map<string, { day: string; hash: string }>> {
  const latest = db
    .select({ proxyAccountId: statements.proxyAccountId, lastDay: max(statements.day).as('last_day') })
    .from(statements)
    .where(and(eq(statements.userId, userId), beforeDay ? lt(statements.day, beforeDay) : undefined))
    .groupBy(statements.proxyAccountId)
    .as('latest');
  const rows = await db
    .select({ proxyAccountId: statements.proxyAccountId, day: statements.day, body: statements.body })
    .from(statements)
    .innerJoin(latest, and(eq(latest.proxyAccountId, statements.proxyAccountId), eq(latest.lastDay, statements.day)));
  return new Map(rows.map((r) => [r.proxyAccountId, { day: r.day, hash: sha256(r.body) }]));
}

/** Per database handle: users whose statements are made up to this open day (a skip, not a truth: redoing is harmless). */
const madeUpTo = new WeakMap<object, Map<string, string>>();

/**
 * Makes and stores the user's missing final statements (every day before the open day with records
 * in the log), in date order per account so each names the one before. A day before the account's
 * latest stored statement is never made afterwards: the chain does not change. Made concurrently by
 * two processes, a statement is the same bytes (Ed25519 signatures are deterministic), and the
 * second insert is a no-op. Emits statement.ready for each new one.
 */
export async function makeFinalStatements(db: DbOrTx, config: ApiConfig, userId: string, now = Date.now()): Promise<number> {
  const open = firstOpenDay(now);
  let done = madeUpTo.get(db);
  if (!done) madeUpTo.set(db, (done = new Map()));
  if (done.get(userId) === open) return 0;
  const signer = statementSigner(config);
  const latest = await latestStored(db, userId);
  const oldestKept = dayOf(now - ((config.connectionLogDays ?? CONNECTION_LOG_DAYS) - 1) * DAY_MS);
  let made = 0;
  for (const { account, day } of await trafficDays(db, userId, oldestKept, open)) {
    const last = latest.get(account.id);
    if (last && day <= last.day) continue;
    const { statement } = await buildStatement(db, signer, account, day, last?.hash ?? null, true);
    const body = canonicalJson(statement);
    const stored = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(statements)
        .values({ proxyAccountId: account.id, userId, day, body })
        .onConflictDoNothing()
        .returning({ id: statements.id });
      if (row) {
        await emitWebhookEvent(tx, { userId, type: 'statement.ready', data: { ...statement }, dedupeKey: `statement:${account.id}:${day}` });
        return body;
      }
      const [other] = await tx
        .select({ body: statements.body })
        .from(statements)
        .where(and(eq(statements.proxyAccountId, account.id), eq(statements.day, day)));
      return other!.body;
    });
    if (stored === body) made += 1;
    latest.set(account.id, { day, hash: sha256(stored) });
  }
  done.set(userId, open);
  return made;
}

/**
 * A report brought records of days that may be final already (a gateway that was offline): users'
 * next asks look for missing statements again (a day after an account's latest statement can still be made).
 */
export function noteLateConnections(db: DbOrTx, earliestStart: number, now = Date.now()): void {
  if (earliestStart < startOf(firstOpenDay(now)).getTime()) madeUpTo.delete(db);
}

/** The daily job: every user with records on days that are final now gets their statements. */
export async function makeDueStatements(db: DbOrTx, config: ApiConfig, now = Date.now()): Promise<{ users: number; made: number }> {
  const open = firstOpenDay(now);
  const oldestKept = dayOf(now - ((config.connectionLogDays ?? CONNECTION_LOG_DAYS) - 1) * DAY_MS);
  const from = jobDoneUpTo.get(db) ?? oldestKept;
  if (from >= open) return { users: 0, made: 0 };
  const users = await db
    .selectDistinct({ userId: connectionLog.userId })
    .from(connectionLog)
    .where(and(gte(connectionLog.startedAt, startOf(from)), lt(connectionLog.startedAt, startOf(open))));
  let made = 0;
  for (const u of users) made += await makeFinalStatements(db, config, u.userId, now);
  jobDoneUpTo.set(db, open);
  return { users: users.length, made };
}
const jobDoneUpTo = new WeakMap<object, string>();

function parseRange(input: StatementsInput, now: number): { from: string; to: string } {
  const today = dayOf(now);
  const to = input?.to ?? today;
  const from = input?.from ?? dayOf(startOf(to).getTime() - 29 * DAY_MS);
  if (from > to) throw new DomainError('BAD_REQUEST', 'from must not be after to');
  if (startOf(to).getTime() - startOf(from).getTime() >= STATEMENTS_MAX_DAYS * DAY_MS) {
    throw new DomainError('BAD_REQUEST', `from and to must be at most ${STATEMENTS_MAX_DAYS} days apart`);
  }
  return { from, to };
}

/**
 * The user's statements over [from, to] (UTC days), newest first, one per account and day with
 * traffic: stored final ones, and provisional ones (final: false, not stored) for the days not
 * final yet, which name the account's latest final statement as `previous`.
 */
export async function listStatements(
  db: DbOrTx,
  config: ApiConfig,
  userId: string,
  input: StatementsInput,
  now = Date.now(),
): Promise<{ statements: Statement[] }> {
  const { from, to } = parseRange(input, now);
  await makeFinalStatements(db, config, userId, now);
  const stored = await db
    .select({ body: statements.body })
    .from(statements)
    .where(and(eq(statements.userId, userId), gte(statements.day, from), lte(statements.day, to)));
  const out = stored.map((r) => JSON.parse(r.body) as Statement);
  const open = firstOpenDay(now);
  const end = nextDay(to < dayOf(now) ? to : dayOf(now));
  const start = from > open ? from : open;
  if (start < end) {
    const signer = statementSigner(config);
    const latest = await latestStored(db, userId, open);
    const provisional: Statement[] = [];
    for (const { account, day } of await trafficDays(db, userId, start, end)) {
      provisional.push((await buildStatement(db, signer, account, day, latest.get(account.id)?.hash ?? null, false)).statement);
    }
    out.push(...provisional);
  }
  return { statements: out.sort((a, b) => (a.date === b.date ? (a.account.proxyUserId < b.account.proxyUserId ? -1 : 1) : a.date < b.date ? 1 : -1)) };
}

/** One day's statements of the user (one per account with traffic; none for a day without). */
export async function dayStatements(db: DbOrTx, config: ApiConfig, userId: string, date: string, now = Date.now()) {
  if (date > dayOf(now)) throw new DomainError('BAD_REQUEST', 'date must not be in the future');
  return { date, ...(await listStatements(db, config, userId, { from: date, to: date }, now)) };
}

/**
 * The bytes a statement's connectionsDigest covers: one account's records of that day in id order,
 * the log's CSV columns. Without `account`, the day's only account with records (a header alone
 * when there is none).
 */
export async function statementConnectionsCsv(db: DbOrTx, userId: string, input: StatementConnectionsInput, now = Date.now()): Promise<string> {
  if (input.date > dayOf(now)) throw new DomainError('BAD_REQUEST', 'date must not be in the future');
  let account: Account | undefined;
  if (input.account) {
    const [a] = await db
      .select({ id: proxyAccounts.id, proxyUserId: proxyAccounts.proxyUserId })
      .from(proxyAccounts)
      .where(
        and(
          eq(proxyAccounts.userId, userId),
          /^[0-9a-f-]{36}$/i.test(input.account)
            ? or(eq(proxyAccounts.id, input.account), eq(proxyAccounts.proxyUserId, input.account))
            : eq(proxyAccounts.proxyUserId, input.account),
        ),
      );
    if (!a) throw new DomainError('NOT_FOUND', 'Proxy account not found');
    account = { ...a, userId };
  } else {
    const accounts = await trafficDays(db, userId, input.date, nextDay(input.date));
    if (accounts.length > 1) throw new DomainError('BAD_REQUEST', `account is required: several proxy accounts have connections on ${input.date}`);
    account = accounts[0]?.account;
  }
  if (!account) return connectionsCsvText([], STATEMENT_CSV_COLUMNS);
  return connectionsCsvText(await accountConnections(db, userId, account.id, startOf(input.date), startOf(nextDay(input.date))), STATEMENT_CSV_COLUMNS);
}
