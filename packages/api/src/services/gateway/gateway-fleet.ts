/**
 * The gateway fleet: each gateway's heartbeat (every ~10 s) keeps its row; one silent for the
 * down interval (60 s by default) is down, and the open leases of a down gateway are settled by
 * the same reconciliation as leases whose report heartbeat expired (leases.ts), so what the admin
 * sees as down and what the ledger treats as gone are the same gateways.
 */
import { and, asc, isNull, lt, sql } from 'drizzle-orm';
import type { GatewayHeartbeatInput } from '@proxyhub/core';
import { gatewayLeases, gateways, type Db, type DbOrTx } from '@proxyhub/db';
import { countUpMinute } from './fleet-status';
import { releaseLeases } from './leases';

/** A gateway without a heartbeat for this long is down. */
export const GATEWAY_DOWN_AFTER_MS = 60_000;

export async function recordHeartbeat(db: DbOrTx, input: GatewayHeartbeatInput) {
  const values = {
    version: input.version,
    startedAt: input.startedAt,
    lastSeenAt: sql`now()`,
    openTunnels: input.openTunnels,
    bytesPerSecUp: BigInt(input.bytesPerSecUp),
    bytesPerSecDown: BigInt(input.bytesPerSecDown),
    leasedBytes: BigInt(input.leasedBytes),
    upstreamErrors: input.upstreamErrors,
  };
  await db
    .insert(gateways)
    .values({ id: input.gatewayId, ...values })
    .onConflictDoUpdate({ target: gateways.id, set: values });
  // The status page's uptime: this minute the fleet answered.
  await countUpMinute(db);
  return { ok: true as const };
}

export async function listGateways(db: DbOrTx, downAfterMs = GATEWAY_DOWN_AFTER_MS, now = Date.now()) {
  const rows = await db.select().from(gateways).orderBy(asc(gateways.id));
  return {
    gateways: rows.map((g) => ({
      id: g.id,
      version: g.version,
      startedAt: g.startedAt.toISOString(),
      lastSeenAt: g.lastSeenAt.toISOString(),
      status: now - g.lastSeenAt.getTime() > downAfterMs ? ('down' as const) : ('up' as const),
      openTunnels: g.openTunnels,
      bytesPerSecUp: Number(g.bytesPerSecUp),
      bytesPerSecDown: Number(g.bytesPerSecDown),
      leasedBytes: Number(g.leasedBytes),
      upstreamErrors: g.upstreamErrors,
    })),
  };
}

/**
 * Settles the open leases of every gateway that is down (silent for downAfterMs): what they did not
 * report goes back to the wallets. If such a gateway comes back, its next report is told which
 * leases were dropped and bills what it spent from them from the wallet (leases.ts).
 */
export function settleDownGateways(db: Db, downAfterMs = GATEWAY_DOWN_AFTER_MS, now = Date.now()) {
  return db.transaction(async (tx) => {
    const down = await tx
      .selectDistinct({ id: gatewayLeases.gatewayId })
      .from(gatewayLeases)
      .innerJoin(gateways, sql`${gateways.id} = ${gatewayLeases.gatewayId}`)
      .where(and(isNull(gatewayLeases.settledAt), lt(gateways.lastSeenAt, new Date(now - downAfterMs))));
    let released = 0;
    let returnedBytes = 0n;
    for (const { id } of down) {
      const r = await releaseLeases(tx, { gatewayId: id });
      released += r.released;
      returnedBytes += r.returnedBytes;
    }
    return { released, returnedBytes, gateways: down.map((d) => d.id) };
  });
}
