import { eq, sql } from 'drizzle-orm';
import { USAGE_TYPES, type UsageType } from '@proxyhub/core';
import { proxyAccounts, usageHourly, type DbOrTx } from '@proxyhub/db';

export interface HourlyUsageDelta {
  proxyAccountId: string;
  usageType: UsageType;
  bytesUp: bigint;
  bytesDown: bigint;
  sessions: number;
}

/** Adds to the current hour's row of each account (one upsert per account), in the caller's transaction. */
export async function addHourlyUsage(tx: DbOrTx, deltas: HourlyUsageDelta[]): Promise<void> {
  const rows = deltas.filter((d) => d.bytesUp > 0n || d.bytesDown > 0n || d.sessions > 0);
  if (!rows.length) return;
  await tx
    .insert(usageHourly)
    .values(
      rows.map((d) => ({
        proxyAccountId: d.proxyAccountId,
        hour: sql`date_trunc('hour', now())`,
        usageType: d.usageType,
        bytesUp: d.bytesUp,
        bytesDown: d.bytesDown,
        sessions: d.sessions,
      })),
    )
    .onConflictDoUpdate({
      target: [usageHourly.proxyAccountId, usageHourly.hour, usageHourly.usageType],
      set: {
        bytesUp: sql`${usageHourly.bytesUp} + excluded.bytes_up`,
        bytesDown: sql`${usageHourly.bytesDown} + excluded.bytes_down`,
        sessions: sql`${usageHourly.sessions} + excluded.sessions`,
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
