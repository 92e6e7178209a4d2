/**
 * The provider's meter against ours: what an upstream provider says it metered per UTC day (its
 * usage API, fetched shortly after each midnight and on demand) beside the bytes our gateways moved
 * through that upstream that day, the drift between them and what the provider's count costs.
 *
 * Our figure is the connection log's bytes (up + down) of the connections that went through the
 * upstream, per UTC day: every byte relayed through it, billed or not (a line test, a tunnel the
 * target refused after its CONNECT exchange). It is stored beside the provider's at each fetch, so
 * days the log no longer keeps still answer. docs/reselling.md says what each side counts.
 */
import { stringify } from 'csv-stringify/sync';
import { and, asc, eq, gte, sql } from 'drizzle-orm';
import {
  dayRangeProblem,
  DomainError,
  RECONCILE_DAYS,
  RECONCILE_FINAL_AFTER_DAYS,
  RECONCILIATION_DEFAULT_DAYS,
  type ReconciliationDay,
  type ReconcileUpstreamInput,
  type UpstreamReconciliationInput,
} from '@proxyhub/core';
import { upstreamAccounts, upstreamProviderDays, type Db, type DbOrTx } from '@proxyhub/db';
import { kickTelegram, type ApiDeps } from '../../deps';
import { CONNECTION_LOG_DAYS } from '../connection-log/days';
import { upstreamBytesByDay } from '../connection-log/reads';
import { raiseAdminAlert } from '../notify/admin-alerts';
import { runOncePerPeriod } from '../lib/job-claims';
import { ProviderError, readProviderUsage } from './provider-adapters';
import { providerAccountOf } from './provider-accounts';
import { centsForBytes, findRow } from './upstreams';

const DAY_MS = 86_400_000;
/** UPSTREAM_DRIFT_ALERT_PERCENT's default. */
export const DEFAULT_DRIFT_ALERT_PERCENT = 3;

type UpstreamRow = Awaited<ReturnType<typeof findRow>>;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const startOf = (day: string) => Date.parse(`${day}T00:00:00Z`);
/** The UTC days from `from` to `to`, both included, oldest first. */
function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = startOf(from); d <= startOf(to); d += DAY_MS) out.push(dayOf(d));
  return out;
}

/**
 * Bytes our gateways moved through one upstream per UTC day of [from, to]: the connection log's
 * up + down for the days it still keeps, and for older days the figure stored with the provider's
 * at its last fetch (the log's partitions are dropped after CONNECTION_LOG_DAYS).
 */
export async function ourBytesByDay(db: DbOrTx, upstreamId: string, from: string, to: string, logDays: number, now = Date.now()): Promise<Map<string, bigint>> {
  const oldestKept = dayOf(now - (logDays - 1) * DAY_MS);
  const lastGone = dayOf(startOf(oldestKept) - DAY_MS);
  const ours = from < oldestKept ? await storedOurBytes(db, upstreamId, from, to < oldestKept ? to : lastGone) : new Map<string, bigint>();
  if (to < oldestKept) return ours;
  const logged = await upstreamBytesByDay(db, upstreamId, startOf(from < oldestKept ? oldestKept : from), startOf(to));
  return new Map([...ours, ...logged]);
}

async function storedOurBytes(db: DbOrTx, upstreamId: string, from: string, to: string): Promise<Map<string, bigint>> {
  const rows = await db
    .select({ day: upstreamProviderDays.day, ourBytes: upstreamProviderDays.ourBytes })
    .from(upstreamProviderDays)
    .where(and(eq(upstreamProviderDays.upstreamId, upstreamId), gte(upstreamProviderDays.day, from), sql`${upstreamProviderDays.day} <= ${to}`));
  return new Map(rows.flatMap((r) => (r.ourBytes === null ? [] : [[r.day, r.ourBytes] as const])));
}

/** (provider - ours) / ours in percent, rounded half away from zero to 2 decimals, in integers. */
export function driftPercentOf(driftBytes: bigint, ourBytes: bigint): number | null {
  if (ourBytes === 0n) return null;
  const abs = driftBytes < 0n ? -driftBytes : driftBytes;
  const hundredths = (abs * 20_000n + ourBytes) / (2n * ourBytes);
  return (driftBytes < 0n ? -1 : 1) * (Number(hundredths) / 100);
}

function dayView(date: string, ours: bigint, stored: { providerBytes: bigint; fetchedAt: Date } | undefined, costPerGbCents: number): ReconciliationDay {
  if (!stored) return { date, providerBytes: null, ourBytes: String(ours), driftBytes: null, driftPercent: null, costCents: null, fetchedAt: null };
  const drift = stored.providerBytes - ours;
  return {
    date,
    providerBytes: String(stored.providerBytes),
    ourBytes: String(ours),
    driftBytes: String(drift),
    driftPercent: driftPercentOf(drift, ours),
    costCents: centsForBytes(stored.providerBytes, costPerGbCents),
    fetchedAt: stored.fetchedAt.toISOString(),
  };
}

/** The days asked for, or the defaults (to: today; from: 29 days before to), refused past 92 days naming the field. */
function rangeOf(input: { from?: string | undefined; to?: string | undefined }, now: number) {
  const to = input.to ?? dayOf(now);
  const from = input.from ?? dayOf(startOf(to) - (RECONCILIATION_DEFAULT_DAYS - 1) * DAY_MS);
  const problem = dayRangeProblem(from, to);
  if (problem) throw new DomainError('BAD_REQUEST', problem.message);
  return { from, to };
}

/** One upstream's days over [from, to], oldest first: provider, ours, drift and the provider's cost. */
export async function upstreamReconciliation(db: DbOrTx, input: UpstreamReconciliationInput, logDays = CONNECTION_LOG_DAYS, now = Date.now()) {
  const upstream = await findRow(db, input.id);
  const { from, to } = rangeOf(input, now);
  const [ours, stored] = await Promise.all([
    ourBytesByDay(db, upstream.id, from, to, logDays, now),
    db
      .select()
      .from(upstreamProviderDays)
      .where(and(eq(upstreamProviderDays.upstreamId, upstream.id), gte(upstreamProviderDays.day, from), sql`${upstreamProviderDays.day} <= ${to}`))
      .orderBy(asc(upstreamProviderDays.day)),
  ]);
  const byDay = new Map(stored.map((s) => [s.day, s]));
  return { days: daysBetween(from, to).map((d) => dayView(d, ours.get(d) ?? 0n, byDay.get(d), upstream.costPerGbCents)) };
}

/** The reconciliation as CSV (`format=csv`): the JSON's fields as columns, in its order, empty where it has null. */
const RECONCILIATION_CSV_COLUMNS = ['date', 'providerBytes', 'ourBytes', 'driftBytes', 'driftPercent', 'costCents', 'fetchedAt'] as const;
export function reconciliationCsvText(days: readonly ReconciliationDay[]): string {
  return stringify(
    days.map((d) => RECONCILIATION_CSV_COLUMNS.map((c) => d[c] ?? '')),
    { header: true, columns: [...RECONCILIATION_CSV_COLUMNS] },
  );
}

export interface ReconcileOutcome {
  date: string;
  /** fetched: stored now; final: fetched once the day was 3 days old, not asked again; error: nothing stored. */
  status: 'fetched' | 'final' | 'error';
  error: string | null;
}

export const NO_PROVIDER_ACCOUNT = 'This upstream has no provider account to reconcile with';

/** A day's figure is final once it was fetched when the day was RECONCILE_FINAL_AFTER_DAYS old. */
const isFinal = (date: string, fetchedAt: Date) => fetchedAt.getTime() >= startOf(date) + RECONCILE_FINAL_AFTER_DAYS * DAY_MS;

/**
 * Fetches the provider's usage of one upstream and stores it per day: `date` alone when given
 * (always fetched: the admin asks), else the 7 days before today, a day already final passed over.
 * The provider is asked outside any transaction (up to 10 s per call); each day is one upsert, so
 * two servers reconciling at once store the provider's figure either way. A failed day stores
 * nothing and says why (never a zero).
 */
export async function reconcileUpstream(db: Db, deps: ApiDeps, input: ReconcileUpstreamInput, now = Date.now()) {
  const upstream = await findRow(db, input.id);
  const account = await providerAccountOf(db, deps.secrets, upstream.id);
  if (!account) throw new DomainError('CONFLICT', NO_PROVIDER_ACCOUNT);
  const today = dayOf(now);
  if (input.date && input.date > today) throw new DomainError('BAD_REQUEST', 'date must not be after today (UTC)');
  const dates = input.date ? [input.date] : daysBetween(dayOf(startOf(today) - RECONCILE_DAYS * DAY_MS), dayOf(startOf(today) - DAY_MS));
  const stored = new Map(
    (
      await db
        .select({ day: upstreamProviderDays.day, fetchedAt: upstreamProviderDays.fetchedAt })
        .from(upstreamProviderDays)
        .where(and(eq(upstreamProviderDays.upstreamId, upstream.id), gte(upstreamProviderDays.day, dates[0]!)))
    ).map((r) => [r.day, r.fetchedAt]),
  );
  const policy = { allowPrivate: deps.config.upstreams?.allowPrivate ?? true };
  const threshold = deps.config.upstreams?.driftAlertPercent ?? DEFAULT_DRIFT_ALERT_PERCENT;
  const logDays = deps.config.connectionLogDays ?? CONNECTION_LOG_DAYS;
  const outcomes: ReconcileOutcome[] = [];
  let alerted = false;
  // Our side of every day asked, in one read of the log (not one per day).
  const ours = await ourBytesByDay(db, upstream.id, dates[0]!, dates.at(-1)!, logDays, now);
  for (const date of dates) {
    const fetchedAt = stored.get(date);
    if (!input.date && fetchedAt && isFinal(date, fetchedAt)) {
      outcomes.push({ date, status: 'final', error: null });
      continue;
    }
    let providerBytes: bigint;
    try {
      providerBytes = await readProviderUsage(account, date, policy);
    } catch (err) {
      if (!(err instanceof ProviderError || err instanceof DomainError)) throw err;
      outcomes.push({ date, status: 'error', error: err.message });
      continue;
    }
    const ourBytes = ours.get(date) ?? 0n;
    await db
      .insert(upstreamProviderDays)
      .values({ upstreamId: upstream.id, day: date, providerBytes, ourBytes, fetchedAt: new Date(now) })
      .onConflictDoUpdate({
        target: [upstreamProviderDays.upstreamId, upstreamProviderDays.day],
        set: { providerBytes, ourBytes, fetchedAt: new Date(now) },
      });
    if (await alertOnDrift(db, threshold, upstream, date, providerBytes, ourBytes)) alerted = true;
    outcomes.push({ date, status: 'fetched', error: null });
  }
  if (alerted) kickTelegram(deps);
  return { days: outcomes };
}

/**
 * An alert when the provider's count is above ours by more than the threshold (or counts traffic
 * where we moved none). Raised at each fetch that sees it; the alert list keeps one per upstream and
 * day (its dedupe key), so refetches and concurrent reconciles add nothing. True when it was new.
 */
async function alertOnDrift(db: Db, thresholdPercent: number, upstream: UpstreamRow, date: string, providerBytes: bigint, ours: bigint): Promise<boolean> {
  const drift = providerBytes - ours;
  const percent = driftPercentOf(drift, ours);
  if (drift <= 0n || (percent !== null && percent <= thresholdPercent)) return false;
  const message =
    percent === null
      ? `${upstream.name}: the provider counted ${providerBytes} bytes on ${date}, we moved none through it`
      : `${upstream.name}: the provider counted ${percent}% more than we did on ${date} (${providerBytes} bytes against ${ours})`;
  const raised = await db.transaction((tx) =>
    raiseAdminAlert(tx, { kind: 'upstream_drift', upstreamId: upstream.id, message, dedupeKey: `upstream_drift:${upstream.id}:${date}` }),
  );
  return raised !== null;
}

/** Shortly after each UTC midnight (this long after), the previous days of every upstream with an account. */
export const RECONCILE_AFTER_MIDNIGHT_MS = 15 * 60_000;

/**
 * One tick of the nightly reconcile on one server: the server that claims the UTC day (counted from
 * 00:15) reconciles every upstream with a provider account; the others, and this one again that
 * day, do nothing. Null when another had the day.
 */
export function reconcileTick(deps: ApiDeps, by: string, now = Date.now()) {
  return runOncePerPeriod(deps.db, { job: 'upstream-reconcile', periodMs: DAY_MS, by, now: now - RECONCILE_AFTER_MIDNIGHT_MS }, async () => {
    const ids = await deps.db.select({ id: upstreamAccounts.upstreamId }).from(upstreamAccounts);
    const results = [];
    for (const { id } of ids) {
      try {
        results.push({ upstreamId: id, ...(await reconcileUpstream(deps.db, deps, { id }, now)) });
      } catch (err) {
        // An upstream deleted meanwhile: the others still get their days.
        if (!(err instanceof DomainError)) throw err;
      }
    }
    return results;
  });
}
