import { eq, sql } from 'drizzle-orm';
import { USAGE_TYPES, type UsageProtocol, type UsageType } from '@proxyhub/core';
import { proxyAccounts, usageDaily, usageHourly, type DbOrTx } from '@proxyhub/db';

/** Where traffic went and how it came in; '' is unknown. */
export interface UsageDimensions {
  protocol: UsageProtocol;
  country: string;
  state: string;
  city: string;
  /** upstreams.id of the pool that carried it; '' for the default upstream or direct egress. */
  upstreamId: string;
}

export interface HourlyUsageDelta extends UsageDimensions {
  proxyAccountId: string;
  usageType: UsageType;
  bytesUp: bigint;
  bytesDown: bigint;
  sessions: number;
}

export const UNKNOWN_DIMENSIONS: UsageDimensions = { protocol: '', country: '', state: '', city: '', upstreamId: '' };

export interface UsageSplit extends UsageDimensions {
  bytesUp: bigint;
  bytesDown: bigint;
  sessions: number;
}

/**
 * Splits what was counted (up, down, sessions: possibly less than reported, when a wallet ran dry)
 * over the parts the gateway reported, in their order, so the parts add up exactly to what was
 * counted; whatever the parts do not cover is unknown.
 */
export function splitUsage(parts: readonly UsageSplit[], up: bigint, down: bigint, sessions: number): UsageSplit[] {
  const out: UsageSplit[] = [];
  let leftUp = up;
  let leftDown = down;
  let leftSessions = sessions;
  for (const p of parts) {
    const u = p.bytesUp < leftUp ? p.bytesUp : leftUp;
    const d = p.bytesDown < leftDown ? p.bytesDown : leftDown;
    const s = Math.min(p.sessions, leftSessions);
    leftUp -= u;
    leftDown -= d;
    leftSessions -= s;
    if (u || d || s) out.push({ ...p, bytesUp: u, bytesDown: d, sessions: s });
  }
  if (leftUp || leftDown || leftSessions) out.push({ ...UNKNOWN_DIMENSIONS, bytesUp: leftUp, bytesDown: leftDown, sessions: leftSessions });
  return out;
}

/**
 * Adds to the current hour's and the current UTC day's row of each account and dimensions, in the
 * caller's transaction (one upsert per table), so both always agree.
 */
export async function addHourlyUsage(tx: DbOrTx, deltas: HourlyUsageDelta[]): Promise<void> {
  const rows = deltas.filter((d) => d.bytesUp > 0n || d.bytesDown > 0n || d.sessions > 0);
  if (!rows.length) return;
  const values = rows.map((d) => ({
    proxyAccountId: d.proxyAccountId,
    usageType: d.usageType,
    protocol: d.protocol,
    country: d.country,
    state: d.state,
    city: d.city,
    upstreamId: d.upstreamId,
    bytesUp: d.bytesUp,
    bytesDown: d.bytesDown,
    sessions: d.sessions,
  }));
  await tx
    .insert(usageHourly)
    .values(values.map((v) => ({ ...v, hour: sql`date_trunc('hour', now(), 'UTC')` })))
    .onConflictDoUpdate({
      target: [
        usageHourly.proxyAccountId,
        usageHourly.hour,
        usageHourly.usageType,
        usageHourly.country,
        usageHourly.state,
        usageHourly.city,
        usageHourly.protocol,
        usageHourly.upstreamId,
      ],
      set: {
        bytesUp: sql`${usageHourly.bytesUp} + excluded.bytes_up`,
        bytesDown: sql`${usageHourly.bytesDown} + excluded.bytes_down`,
        sessions: sql`${usageHourly.sessions} + excluded.sessions`,
        updatedAt: sql`now()`,
      },
    });
  await tx
    .insert(usageDaily)
    .values(values.map((v) => ({ ...v, day: sql`date_trunc('day', now(), 'UTC')` })))
    .onConflictDoUpdate({
      target: [
        usageDaily.proxyAccountId,
        usageDaily.day,
        usageDaily.usageType,
        usageDaily.country,
        usageDaily.state,
        usageDaily.city,
        usageDaily.protocol,
        usageDaily.upstreamId,
      ],
      set: {
        bytesUp: sql`${usageDaily.bytesUp} + excluded.bytes_up`,
        bytesDown: sql`${usageDaily.bytesDown} + excluded.bytes_down`,
        sessions: sql`${usageDaily.sessions} + excluded.sessions`,
        updatedAt: sql`now()`,
      },
    });
}

export interface UsageByType {
  usageType: UsageType;
  totalBytes: bigint;
  /** One session is one authenticated connection through the gateway. */
  totalSessions: number;
  lastUpdated: Date | null;
}

/** Global usage per usage type (always all three), from the hourly rows the gateway reports feed. */
export async function usageByType(db: DbOrTx): Promise<UsageByType[]> {
  const rows = await db
    .select({
      usageType: usageHourly.usageType,
      bytes: sql<string>`coalesce(sum(${usageHourly.bytesUp} + ${usageHourly.bytesDown}), 0)::text`,
      sessions: sql<string>`coalesce(sum(${usageHourly.sessions}), 0)::text`,
      lastUpdated: sql<Date | null>`max(${usageHourly.updatedAt})`.mapWith(usageHourly.updatedAt),
    })
    .from(usageHourly)
    .groupBy(usageHourly.usageType);
  return USAGE_TYPES.map((usageType) => {
    const r = rows.find((x) => x.usageType === usageType);
    return {
      usageType,
      totalBytes: r ? BigInt(r.bytes) : 0n,
      totalSessions: r ? Number(r.sessions) : 0,
      lastUpdated: r?.lastUpdated ?? null,
    };
  });
}

/** Hourly usage summed over the proxy accounts a user owns (their own and associated batches'). */
export async function userUsageTotals(db: DbOrTx, userId: string): Promise<{ bytesUp: bigint; bytesDown: bigint; sessions: number }> {
  const [r] = await db
    .select({
      up: sql<string>`coalesce(sum(${usageHourly.bytesUp}), 0)::text`,
      down: sql<string>`coalesce(sum(${usageHourly.bytesDown}), 0)::text`,
      sessions: sql<string>`coalesce(sum(${usageHourly.sessions}), 0)::text`,
    })
    .from(usageHourly)
    .innerJoin(proxyAccounts, eq(proxyAccounts.id, usageHourly.proxyAccountId))
    .where(eq(proxyAccounts.userId, userId));
  return { bytesUp: BigInt(r!.up), bytesDown: BigInt(r!.down), sessions: Number(r!.sessions) };
}
