/**
 * A user's traffic over time: points per hour or UTC day (empty and future buckets as zeros),
 * totals, and the same bytes by country and by proxy account. Hours come from usage_hourly, days
 * from usage_daily (kept in the same transaction), so a year of days is 365 rows per account and key.
 */
import { and, eq, gte, lte, sql } from 'drizzle-orm';
import { DomainError, parseIsoTime, USAGE_MAX_POINTS, type ConnectionOutcome, type UsageGranularity, type UsageHistoryInput } from '@proxyhub/core';
import { proxyAccounts, usageDaily, usageHourly, type DbOrTx } from '@proxyhub/db';
import { connectionBreakdown, type ConnectionQuality } from '../connection-log/reads';

export interface UsagePoint {
  start: string;
  bytesUp: string;
  bytesDown: string;
  sessions: number;
}

export interface UsageHistory {
  granularity: UsageGranularity;
  from: string;
  to: string;
  points: UsagePoint[];
  totals: { bytesUp: string; bytesDown: string; sessions: number };
  /**
   * `country` null: traffic recorded before locations were (or without one). okRate and
   * p50ConnectMs from the connection log's records of the country (null without any).
   */
  byCountry: ({ country: string | null; bytes: string } & ConnectionQuality)[];
  byAccount: { proxyUserId: string; name: string; bytes: string }[];
  /** From the connection log: the 100 hosts that took the most (billed) bytes (with their quality), and connections by outcome. */
  byTarget: ({ host: string; bytes: string; connections: number } & ConnectionQuality)[];
  byOutcome: { outcome: ConnectionOutcome; connections: number }[];
}

const HOUR_MS = 3_600_000;
const STEP_MS: Record<UsageGranularity, number> = { hour: HOUR_MS, day: 24 * HOUR_MS };
/** Without `from`: the last 24 hours, or the last 30 days. */
const DEFAULT_POINTS: Record<UsageGranularity, number> = { hour: 24, day: 30 };

const bucketOf = (t: number, g: UsageGranularity) => t - (t % STEP_MS[g]);

export function usageRange(input: UsageHistoryInput, now = Date.now()): { granularity: UsageGranularity; start: number; end: number } {
  const granularity = input?.granularity ?? 'hour';
  const step = STEP_MS[granularity];
  const end = bucketOf(input?.to ? parseIsoTime(input.to).getTime() : now, granularity);
  const start = input?.from ? bucketOf(parseIsoTime(input.from).getTime(), granularity) : end - (DEFAULT_POINTS[granularity] - 1) * step;
  if (start > end) throw new DomainError('BAD_REQUEST', 'The start must not be after the end');
  const points = (end - start) / step + 1;
  if (points > USAGE_MAX_POINTS[granularity]) {
    throw new DomainError(
      'BAD_REQUEST',
      granularity === 'hour'
        ? 'At most 31 days of hourly usage per call: ask for a shorter range or granularity=day'
        : 'At most 366 days of daily usage per call: ask for a shorter range',
    );
  }
  return { granularity, start, end };
}

export async function userUsageHistory(db: DbOrTx, userId: string, input: UsageHistoryInput, now = Date.now()): Promise<UsageHistory> {
  const { granularity, start, end } = usageRange(input, now);
  const t = granularity === 'hour' ? { table: usageHourly, at: usageHourly.hour } : { table: usageDaily, at: usageDaily.day };
  const { table, at } = t;
  const inRange = and(eq(proxyAccounts.userId, userId), gte(at, new Date(start)), lte(at, new Date(end)));
  // One pass over the rows for all three views (GROUPING SETS): the points, by country, by account.
  // grouping() says which set a result row belongs to: 3 = by bucket, 5 = by country, 6 = by account.
  const rows = await db
    .select({
      set: sql<number>`grouping(${at}, ${table.country}, ${proxyAccounts.id})`.mapWith(Number),
      at: sql<string | null>`(extract(epoch from ${at}) * 1000)::bigint::text`,
      country: table.country,
      proxyUserId: proxyAccounts.proxyUserId,
      name: proxyAccounts.name,
      up: sql<string>`sum(${table.bytesUp})::text`,
      down: sql<string>`sum(${table.bytesDown})::text`,
      sessions: sql<string>`sum(${table.sessions})::text`,
    })
    .from(table)
    .innerJoin(proxyAccounts, eq(proxyAccounts.id, table.proxyAccountId))
    .where(inRange)
    .groupBy(sql`grouping sets ((${at}), (${table.country}), (${proxyAccounts.id}, ${proxyAccounts.proxyUserId}, ${proxyAccounts.name}))`);
  const bytesOf = (r: { up: string; down: string }) => BigInt(r.up) + BigInt(r.down);
  const largestFirst = <T extends { up: string; down: string }>(list: T[], name: (r: T) => string) =>
    list.sort((a, b) => {
      const d = bytesOf(b) - bytesOf(a);
      return d > 0n ? 1 : d < 0n ? -1 : name(a) < name(b) ? -1 : 1;
    });
  const countries = largestFirst(
    rows.filter((r) => r.set === 5),
    (r) => r.country,
  );
  const accounts = largestFirst(
    rows.filter((r) => r.set === 6),
    (r) => r.proxyUserId,
  );

  const byBucket = new Map(rows.filter((r) => r.set === 3).map((r) => [Number(r.at), r]));
  const points: UsagePoint[] = [];
  let up = 0n;
  let down = 0n;
  let sessions = 0;
  for (let b = start; b <= end; b += STEP_MS[granularity]) {
    const r = byBucket.get(b);
    points.push({ start: new Date(b).toISOString(), bytesUp: r?.up ?? '0', bytesDown: r?.down ?? '0', sessions: Number(r?.sessions ?? 0) });
    if (r) {
      up += BigInt(r.up);
      down += BigInt(r.down);
      sessions += Number(r.sessions);
    }
  }
  // By target and outcome, from the connection log over the same buckets.
  const { byCountry: qualityByCountry, ...log } = await connectionBreakdown(db, userId, new Date(start), new Date(end + STEP_MS[granularity]));
  const unrecorded: ConnectionQuality = { okRate: null, p50ConnectMs: null };
  return {
    granularity,
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
    points,
    totals: { bytesUp: up.toString(), bytesDown: down.toString(), sessions },
    byCountry: countries
      .filter((c) => bytesOf(c) > 0n)
      .map((c) => ({ country: c.country || null, bytes: bytesOf(c).toString(), ...(qualityByCountry.get(c.country ?? '') ?? unrecorded) })),
    byAccount: accounts.filter((a) => bytesOf(a) > 0n).map((a) => ({ proxyUserId: a.proxyUserId, name: a.name, bytes: bytesOf(a).toString() })),
    ...log,
  };
}
