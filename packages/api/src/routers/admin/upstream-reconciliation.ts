import type { TRPCRouterRecord } from '@trpc/server';
import { reconcileUpstreamInput, upstreamReconciliationInput, adminUpstreamReconciliationOutput, adminReconcileUpstreamOutput } from '@proxyhub/core';
import { reconcileUpstream, upstreamReconciliation } from '../../services/network/upstream-reconciliation';
import { adminOrInternalProcedure } from '../../trpc';

/** The provider's meter against ours, per upstream and UTC day (admin.*; owners, as every upstream procedure). */
export const upstreamReconciliationProcedures = {
  /** Provider bytes, our bytes, drift and the provider's cost per UTC day (at most 92 days). */
  upstreamReconciliation: adminOrInternalProcedure
    .input(upstreamReconciliationInput)
    .output(adminUpstreamReconciliationOutput)
    .query(({ ctx, input }) => upstreamReconciliation(ctx.db, input, ctx.deps.config.connectionLogDays)),
  /** The provider's usage fetched now: one day, or the last 7; each day's outcome (fetched, final, or the provider's error). */
  reconcileUpstream: adminOrInternalProcedure
    .input(reconcileUpstreamInput)
    .output(adminReconcileUpstreamOutput)
    .mutation(({ ctx, input }) => reconcileUpstream(ctx.db, ctx.deps, input)),
} satisfies TRPCRouterRecord;
