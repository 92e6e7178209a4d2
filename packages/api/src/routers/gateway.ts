import type { TRPCRouterRecord } from '@trpc/server';
import {
  gatewayAuthorizeAddressInput,
  gatewayAuthorizeInput,
  gatewayAuthorizeManyInput,
  gatewayHeartbeatInput,
  gatewayReleaseLeasesInput,
  gatewayReserveLeaseInput,
  gatewayReserveLeasesInput,
  LOCAL_GATEWAY_HOST,
} from '@proxyhub/core';
import { authorizeProxyAccount, authorizeProxyAccounts, authorizeSourceAddress } from '../services/gateway/gateway-auth';
import { recordHeartbeat } from '../services/gateway/gateway-fleet';
import { gatewayUpstreams } from '../services/network/upstreams';
import { getTargetPolicy } from '../services/network/target-policy';
import { receiveGatewayReport } from '../services/gateway/gateway-report';
import { gatewayReportBulkInput } from '../services/gateway/bulk-rows';
import { releaseLeases, reserveLease, reserveLeases } from '../services/gateway/leases';
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
    .mutation(({ ctx, input }) => authorizeSourceAddress(ctx.db, input, ctx.deps.config)),

  /** Moves up to `bytes` from the account's wallet into a lease held by the gateway. */
  reserveLease: internalProcedure.input(gatewayReserveLeaseInput).mutation(({ ctx, input }) => ctx.db.transaction((tx) => reserveLease(tx, input))),

  /** Many lease requests of one gateway in one transaction: grants in the order asked. */
  reserveLeases: internalProcedure
    .input(gatewayReserveLeasesInput)
    .mutation(async ({ ctx, input }) => ({ grants: await ctx.db.transaction((tx) => reserveLeases(tx, input)) })),

  /** Usage per lease since the last report, with its connection records; applied once per (gatewayId, seq). Also the heartbeat. */
  report: internalProcedure.input(gatewayReportBulkInput).mutation(({ ctx, input }) => receiveGatewayReport(ctx.db, ctx.deps, input)),

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
