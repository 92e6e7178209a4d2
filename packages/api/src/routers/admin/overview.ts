import type { TRPCRouterRecord } from '@trpc/server';
import { adminPaymentsInput } from '@proxyhub/core';
import { adminOverview } from '../../services/admin/overview';
import { globalUsage } from '../../services/admin/user-list';
import { listAllPayments } from '../../services/money/payments';
import { financeProcedure } from '../../trpc';

/** The Overview and Payments tabs: the business in figures. */
export const adminOverviewProcedures = {
  globalUsage: financeProcedure.query(({ ctx }) => globalUsage(ctx.db)),
  /** The last 30 days: traffic by day and by country, revenue by day (crypto paid, codes at list price). */
  globalHistory: financeProcedure.query(({ ctx }) => adminOverview(ctx.db)),
  payments: financeProcedure.input(adminPaymentsInput).query(({ ctx, input }) => listAllPayments(ctx.db, input ?? {})),
} satisfies TRPCRouterRecord;
