import type { TRPCRouterRecord } from '@trpc/server';
import { upstreamReconciliationInput } from '@proxyhub/core';
import { upstreamReconciliation } from '../services/upstream-reconciliation';
import { adminOrInternalProcedure } from '../trpc';

/** The provider's meter against ours, per upstream and UTC day (admin.*; owners, as every upstream procedure). */
export const upstreamReconciliationProcedures = {
  /** Provider bytes, our bytes, drift and the provider's cost per UTC day (at most 92 days). */
  upstreamReconciliation: adminOrInternalProcedure.input(upstreamReconciliationInput).query(({ ctx, input }) => upstreamReconciliation(ctx.db, input)),
} satisfies TRPCRouterRecord;
