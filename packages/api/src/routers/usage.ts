import type { TRPCRouterRecord } from '@trpc/server';
import { usageHistoryInput } from '@proxyhub/core';
import { userUsageHistory } from '../services/usage-history';
import { userProcedure } from '../trpc';

export const usageRouter = {
  /** The user's traffic by hour or day, with totals and the same bytes by country and by proxy account. */
  history: userProcedure.input(usageHistoryInput).query(({ ctx, input }) => userUsageHistory(ctx.db, ctx.user.id, input)),
} satisfies TRPCRouterRecord;
