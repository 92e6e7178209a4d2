import type { TRPCRouterRecord } from '@trpc/server';
import { gatewayAuthorizeInput, gatewayReleaseLeasesInput, gatewayReportInput, gatewayReserveLeaseInput, LOCAL_GATEWAY_HOST } from '@proxyhub/core';
import { authorizeProxyAccount } from '../services/gateway-auth';
import { applyGatewayReport, releaseLeases, reserveLease } from '../services/leases';
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

  /** Checks proxy credentials (and a location) for the gateway, which caches the answer briefly. */
  authorize: internalProcedure.input(gatewayAuthorizeInput).mutation(({ ctx, input }) => authorizeProxyAccount(ctx.db, ctx.deps.secrets, input)),

  /** Moves up to `bytes` from the account's wallet into a lease held by the gateway. */
  reserveLease: internalProcedure.input(gatewayReserveLeaseInput).mutation(({ ctx, input }) => ctx.db.transaction((tx) => reserveLease(tx, input))),

  /** Usage per lease since the last report; applied once per (gatewayId, seq). Also the heartbeat. */
  report: internalProcedure.input(gatewayReportInput).mutation(({ ctx, input }) => ctx.db.transaction((tx) => applyGatewayReport(tx, input))),

  /** Returns what the gateway's leases did not use (graceful shutdown, restart after a crash). */
  releaseLeases: internalProcedure
    .input(gatewayReleaseLeasesInput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => releaseLeases(tx, { gatewayId: input.gatewayId, leaseIds: input.leaseIds }))),
} satisfies TRPCRouterRecord;
