/**
 * maxConnections across the fleet. The gateways share only this server, so each reports the open
 * connections of its limited accounts with its usage reports (about once a second while they
 * change) and is answered what it may hold per account: the limit less what the other gateways
 * reported in the last CONNECTIONS_FRESH_MS. A gateway enforces its allowance exactly (connection-
 * slots.ts); the fleet as a whole may go over only for the seconds two reports take.
 */
import { and, eq, gt, inArray, ne, notInArray, sql } from 'drizzle-orm';
import { gatewayConnections, proxyAccounts, type DbOrTx } from '@proxyhub/db';

/** A gateway's counts older than this no longer hold slots (a gateway that stopped reporting). */
export const CONNECTIONS_FRESH_MS = 10_000;

export interface ConnectionAllowance {
  proxyAccountId: string;
  allowed: number;
}

export interface OpenConnections {
  proxyAccountId: string;
  open: number;
}

/**
 * Records what `gatewayId` holds now (accounts it no longer lists hold nothing there) and answers
 * its allowance for each account it listed that has a limit.
 */
export async function connectionAllowances(
  db: DbOrTx,
  gatewayId: string,
  counts: readonly OpenConnections[],
  now = new Date(),
): Promise<ConnectionAllowance[]> {
  const listed = counts.filter((c) => c.open > 0);
  const ids = [...new Set(counts.map((c) => c.proxyAccountId))];
  await db.delete(gatewayConnections).where(
    listed.length
      ? and(
          eq(gatewayConnections.gatewayId, gatewayId),
          notInArray(
            gatewayConnections.proxyAccountId,
            listed.map((c) => c.proxyAccountId),
          ),
        )
      : eq(gatewayConnections.gatewayId, gatewayId),
  );
  if (listed.length) {
    await db
      .insert(gatewayConnections)
      .values(listed.map((c) => ({ gatewayId, proxyAccountId: c.proxyAccountId, open: c.open, reportedAt: now })))
      .onConflictDoUpdate({
        target: [gatewayConnections.gatewayId, gatewayConnections.proxyAccountId],
        set: { open: sql`excluded.open`, reportedAt: sql`excluded.reported_at` },
      })
      // An account deleted meanwhile: nothing to count.
      .catch(() => undefined);
  }
  if (!ids.length) return [];
  const limits = await db.select({ id: proxyAccounts.id, max: proxyAccounts.maxConnections }).from(proxyAccounts).where(inArray(proxyAccounts.id, ids));
  const others = await db
    .select({ id: gatewayConnections.proxyAccountId, open: sql<number>`sum(${gatewayConnections.open})::int` })
    .from(gatewayConnections)
    .where(
      and(
        inArray(gatewayConnections.proxyAccountId, ids),
        ne(gatewayConnections.gatewayId, gatewayId),
        gt(gatewayConnections.reportedAt, new Date(now.getTime() - CONNECTIONS_FRESH_MS)),
      ),
    )
    .groupBy(gatewayConnections.proxyAccountId);
  const held = new Map(others.map((o) => [o.id, Number(o.open)]));
  return limits.flatMap((l) => (l.max === null ? [] : [{ proxyAccountId: l.id, allowed: Math.max(0, l.max - (held.get(l.id) ?? 0)) }]));
}
