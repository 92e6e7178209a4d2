import type { TRPCRouterRecord } from '@trpc/server';
import { adminPaymentsInput, adminGlobalUsageOutput, adminGlobalHistoryOutput, adminPaymentsOutput } from '@proxyhub/core';
import { adminOverview } from '../../services/admin/overview';
import { globalUsage } from '../../services/admin/user-list';
import { listAllPayments } from '../../services/money/payments';
import { financeProcedure } from '../../trpc';

/** The Overview and Payments tabs: the business in figures. */
export const adminOverviewProcedures = {
  globalUsage: financeProcedure.output(adminGlobalUsageOutput).query(({ ctx }) => globalUsage(ctx.db)),
  /** The last 30 days: traffic by day and by country, revenue by day (crypto paid, codes at list price). */
  globalHistory: financeProcedure.output(adminGlobalHistoryOutput).query(({ ctx }) => adminOverview(ctx.db)),
  payments: financeProcedure
    .input(adminPaymentsInput)
    .output(adminPaymentsOutput)
    .query(({ ctx, input }) => listAllPayments(ctx.db, input ?? {})),
} satisfies TRPCRouterRecord;
