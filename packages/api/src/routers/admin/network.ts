import type { TRPCRouterRecord } from '@trpc/server';
import {
  createUpstreamInput,
  DEFAULT_UPSTREAM_CHECK_URL,
  testUpstreamInput,
  updateUpstreamInput,
  upstreamIdInput,
  adminUpstreamsOutput,
  adminCostWarningsOutput,
  adminUpstreamUsageOutput,
  adminCreateUpstreamOutput,
  adminUpdateUpstreamOutput,
  adminTestUpstreamOutput,
  adminDeleteUpstreamOutput,
  adminGatewaysOutput,
} from '@proxyhub/core';
import type { ApiConfig } from '../../config';
import { listGateways } from '../../services/gateway/gateway-fleet';
import { costWarnings, createUpstream, deleteUpstream, listUpstreams, updateUpstream, upstreamDailyUsage } from '../../services/network/upstreams';
import { testUpstream } from '../../services/network/upstream-test';
import { adminOrInternalProcedure } from '../../trpc';

/** Private upstream hosts: allowed only where the config says so (absent: tests and development). */
const upstreamPolicy = (config: ApiConfig) => ({ allowPrivate: config.upstreams?.allowPrivate ?? true });

/** The Network tab: upstream pools and the gateway fleet. */
export const adminNetworkProcedures = {
  /** Upstream pools with their last 30 days of usage, cost, revenue and margin (passwords never). */
  upstreams: adminOrInternalProcedure.output(adminUpstreamsOutput).query(({ ctx }) => listUpstreams(ctx.db)),
  /** Pools that cost more per GB than a GB is sold for (the overview's and the Pricing tab's warnings). */
  costWarnings: adminOrInternalProcedure.output(adminCostWarningsOutput).query(({ ctx }) => costWarnings(ctx.db)),
  /** One upstream's usage per UTC day over the last 30 days. */
  upstreamUsage: adminOrInternalProcedure
    .input(upstreamIdInput)
    .output(adminUpstreamUsageOutput)
    .query(({ ctx, input }) => upstreamDailyUsage(ctx.db, input.id)),
  createUpstream: adminOrInternalProcedure
    .input(createUpstreamInput)
    .output(adminCreateUpstreamOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => createUpstream(tx, ctx.deps.secrets, input, upstreamPolicy(ctx.deps.config)))),
  updateUpstream: adminOrInternalProcedure
    .input(updateUpstreamInput)
    .output(adminUpdateUpstreamOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => updateUpstream(tx, ctx.deps.secrets, input, upstreamPolicy(ctx.deps.config)))),
  /** One tunnel through the upstream as a customer's line would go, and one page fetched through it (not billed). */
  testUpstream: adminOrInternalProcedure
    .input(testUpstreamInput)
    .output(adminTestUpstreamOutput)
    .mutation(({ ctx, input }) =>
      testUpstream(ctx.db, ctx.deps.secrets, input, {
        ...upstreamPolicy(ctx.deps.config),
        checkUrl: ctx.deps.config.upstreams?.checkUrl ?? DEFAULT_UPSTREAM_CHECK_URL,
      }),
    ),
  deleteUpstream: adminOrInternalProcedure
    .input(upstreamIdInput)
    .output(adminDeleteUpstreamOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => deleteUpstream(tx, input.id))),
  /** The gateway fleet from its heartbeats; silent past GATEWAY_DOWN_AFTER_SECONDS is down. */
  gateways: adminOrInternalProcedure.output(adminGatewaysOutput).query(({ ctx }) => listGateways(ctx.db, ctx.deps.config.gatewayDownAfterMs)),
} satisfies TRPCRouterRecord;
