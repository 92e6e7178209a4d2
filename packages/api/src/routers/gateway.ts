import type { TRPCRouterRecord } from '@trpc/server';
import {
  gatewayAuthorizeAddressInput,
  gatewayAuthorizeInput,
  gatewayAuthorizeManyInput,
  gatewayHeartbeatInput,
  gatewayReleaseLeasesInput,
  gatewayReportInput,
  gatewayReserveLeaseInput,
  gatewayReserveLeasesInput,
  LOCAL_GATEWAY_HOST,
} from '@proxyhub/core';
import { inBackground } from '../deps';
import { checkBalanceAlerts, usersOfLeases } from '../services/balance-alerts';
import { authorizeProxyAccount, authorizeProxyAccounts, authorizeSourceAddress } from '../services/gateway-auth';
import { recordHeartbeat } from '../services/gateway-fleet';
import { gatewayUpstreams } from '../services/upstreams';
import { getTargetPolicy } from '../services/target-policy';
import { connectionCount, ensureConnectionPartitions, reportConnections, reportDays, storeConnections, CONNECTION_LOG_DAYS } from '../services/connection-log';
import { noteLateConnections } from '../services/statements';
import { connectionAllowances, type ConnectionAllowance } from '../services/connection-limits';
import { applyGatewayReport, releaseLeases, reserveLease, reserveLeases, type ReportResult } from '../services/leases';
import { internalProcedure, publicProcedure } from '../trpc';

export const gatewayRouter = {
  /**
   * The endpoint the proxy generator prints. `host` null means "the host the page was served
   * from" (localhost:3001 in development, as the spec says); production sets GATEWAY_PUBLIC_HOST.
   */
  endpoint: publicProcedure.query(({ ctx }) => ({
    host: ctx.deps.config.gateway.publicHost,
    port: ctx.deps.config.gateway.publicPort,
    localHost: LOCAL_GATEWAY_HOST,
  })),

  /**
   * Checks proxy credentials (and a location) for the gateway, which caches the answer briefly; with
   * `lease`, also reserves the account's first lease for a login it lets through.
   */
  authorize: internalProcedure
    // Every gateway connection with a cold cache asks: it must not empty the API's read cache (a
    // first lease moves credits into a lease: what a user has left, all the cache shows, is the same).
    .meta({ keepsReadCache: true })
    .input(gatewayAuthorizeInput)
    .mutation(({ ctx, input }) => authorizeProxyAccount(ctx.db, ctx.deps.secrets, input, ctx.deps.config)),

  /** Many credential checks in one call (the gateway gathers the logins of one moment): answers in order. */
  authorizeMany: internalProcedure
    .meta({ keepsReadCache: true })
    .input(gatewayAuthorizeManyInput)
    .mutation(async ({ ctx, input }) => ({ answers: await authorizeProxyAccounts(ctx.db, ctx.deps.secrets, input.items, ctx.deps.config) })),

  /** A connection without credentials: whose it is, by its source address (password-less access), if anyone's. */
  authorizeAddress: internalProcedure
    .meta({ keepsReadCache: true })
    .input(gatewayAuthorizeAddressInput)
    .mutation(({ ctx, input }) => authorizeSourceAddress(ctx.db, input)),

  /** Moves up to `bytes` from the account's wallet into a lease held by the gateway. */
  reserveLease: internalProcedure.input(gatewayReserveLeaseInput).mutation(({ ctx, input }) => ctx.db.transaction((tx) => reserveLease(tx, input))),

  /** Many lease requests of one gateway in one transaction: grants in the order asked. */
  reserveLeases: internalProcedure
    .input(gatewayReserveLeasesInput)
    .mutation(async ({ ctx, input }) => ({ grants: await ctx.db.transaction((tx) => reserveLeases(tx, input)) })),

  /** Usage per lease since the last report; applied once per (gatewayId, seq). Also the heartbeat. */
  report: internalProcedure.input(gatewayReportInput).mutation(async ({ ctx, input }) => {
    const records = reportConnections(input);
    const { days, oldest, earliest } = reportDays(records, Date.now(), ctx.deps.config.connectionLogDays ?? CONNECTION_LOG_DAYS);
    // Outside the transaction: making a partition locks the whole table for a moment.
    await ensureConnectionPartitions(ctx.db, days);
    // With the usage it bills, once: a repeated (gatewayId, seq) stores nothing again. Stored
    // before the usage takes its row locks, so reports of one user from several gateways store
    // their records side by side.
    const result = await ctx.db.transaction((tx) =>
      applyGatewayReport(tx, input, { whenClaimed: () => storeConnections(tx, input.gatewayId, records, oldest) }),
    );
    if (result.applied && connectionCount(records)) noteLateConnections(ctx.db, earliest);
    // After commit, off the gateway's answer (a slow or failing mailer must not fail a report that
    // was applied): low-balance mails for the users whose wallets this report spent.
    if (result.applied) {
      const leaseIds = input.items.map((i) => i.leaseId);
      inBackground(ctx.deps, 'balance alerts', async () => checkBalanceAlerts(ctx.db, ctx.deps, await usersOfLeases(ctx.db, leaseIds), ctx.deps.logger));
    }
    // Connection counts are the gateway's state now, recorded even with a repeated report.
    const answer: ReportResult & { allowances?: ConnectionAllowance[] } = result;
    if (input.openConnections) answer.allowances = await connectionAllowances(ctx.db, input.gatewayId, input.openConnections);
    return answer;
  }),

  /** The enabled upstream pools, passwords in clear: gateways poll it (changes reach them within 30 s). */
  /** The target policy: gateways poll it every few seconds (changes reach them within 10 s). */
  targetPolicy: internalProcedure.query(({ ctx }) => getTargetPolicy(ctx.db)),
  upstreams: internalProcedure.query(({ ctx }) => gatewayUpstreams(ctx.db, ctx.deps.secrets)),

  /** The fleet's heartbeat: who the gateway is and how it is doing (GET /admin/gateways). */
  heartbeat: internalProcedure
    .meta({ keepsReadCache: true })
    .input(gatewayHeartbeatInput)
    .mutation(({ ctx, input }) => recordHeartbeat(ctx.db, input)),

  /** Returns what the gateway's leases did not use (graceful shutdown, restart after a crash). */
  releaseLeases: internalProcedure
    .input(gatewayReleaseLeasesInput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => releaseLeases(tx, { gatewayId: input.gatewayId, leaseIds: input.leaseIds }))),
} satisfies TRPCRouterRecord;
