import type { TRPCRouterRecord } from '@trpc/server';
import { bytesToGb, hundredthsGbToBytes, setAlertsInput, alertsGetOutput, alertsSetOutput } from '@proxyhub/core';
import { checkBalanceAlerts, getLowBalanceThreshold, setLowBalanceThreshold } from '../services/notify/balance-alerts';
import { getUsageAlertPercents, setUsageAlertPercents } from '../services/notify/usage-alerts';
import { scopedProcedure } from '../trpc';

export const alertsRouter = {
  /** The low-balance threshold in GB (null: no alerts) and the usage alert percents. */
  get: scopedProcedure('accounts:read')
    .output(alertsGetOutput)
    .query(async ({ ctx }) => {
      const bytes = await getLowBalanceThreshold(ctx.db, ctx.user.id);
      return { lowBalanceGB: bytes === null ? null : bytesToGb(bytes), usageAlertPercents: await getUsageAlertPercents(ctx.db, ctx.user.id) };
    }),

  /** Left out, `usageAlertPercents` stays as it is. */
  set: scopedProcedure('accounts:write')
    .input(setAlertsInput)
    .output(alertsSetOutput)
    .mutation(async ({ ctx, input }) => {
      await ctx.db.transaction(async (tx) => {
        await setLowBalanceThreshold(tx, ctx.user.id, input.lowBalanceGB === null ? null : hundredthsGbToBytes(input.lowBalanceGB));
        if (input.usageAlertPercents) await setUsageAlertPercents(tx, ctx.user.id, input.usageAlertPercents);
      });
      // A balance already below the new threshold is reported now, not at the next report.
      await checkBalanceAlerts(ctx.db, ctx.deps, [ctx.user.id], ctx.deps.logger);
      return { lowBalanceGB: input.lowBalanceGB, usageAlertPercents: await getUsageAlertPercents(ctx.db, ctx.user.id) };
    }),
} satisfies TRPCRouterRecord;
