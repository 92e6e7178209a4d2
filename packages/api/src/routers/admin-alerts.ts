import { adminAlertsListOutput } from '@proxyhub/core';
import type { TRPCRouterRecord } from '@trpc/server';
import { listAdminAlerts } from '../services/notify/admin-alerts';
import { financeProcedure } from '../trpc';

/** The admin's alerts (providers low or dry, drift): owners and finance, who also hear of them on Telegram. */
export const adminAlertsRouter = {
  list: financeProcedure.output(adminAlertsListOutput).query(({ ctx }) => listAdminAlerts(ctx.db)),
} satisfies TRPCRouterRecord;
