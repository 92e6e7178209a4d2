import type { TRPCRouterRecord } from '@trpc/server';
import { giftCodeInput, giftCodeParam, giftsCreateOutput, giftsListOutput, giftsCancelOutput } from '@proxyhub/core';
import { checkBalanceAlerts } from '../services/notify/balance-alerts';
import { cancelGiftCode, createGiftCode, listGiftCodes, userActor } from '../services/money/gift-codes';
import { limited } from '../limits';
import { scopedProcedure } from '../trpc';

/** Gift codes made from the caller's own balance. */
export const giftsRouter = {
  create: scopedProcedure('billing:write')
    .input(giftCodeInput)
    .use(limited((ctx) => [['gift', ctx.user!.id]]))
    .output(giftsCreateOutput)
    .mutation(async ({ ctx, input }) => {
      const r = await ctx.db.transaction((tx) =>
        createGiftCode(tx, { userId: ctx.user.id, creditsGB: input.creditsGB, actor: userActor(ctx.user.id, ctx.req.ip) }),
      );
      await checkBalanceAlerts(ctx.db, ctx.deps, [ctx.user.id], ctx.deps.logger); // a gift may take the balance below the threshold
      return r;
    }),
  list: scopedProcedure('billing:write')
    .output(giftsListOutput)
    .query(({ ctx }) => listGiftCodes(ctx.db, ctx.user.id)),
  cancel: scopedProcedure('billing:write')
    .input(giftCodeParam)
    .output(giftsCancelOutput)
    .mutation(async ({ ctx, input }) => {
      const r = await ctx.db.transaction((tx) => cancelGiftCode(tx, { userId: ctx.user.id, code: input.code, actor: userActor(ctx.user.id, ctx.req.ip) }));
      await checkBalanceAlerts(ctx.db, ctx.deps, [ctx.user.id], ctx.deps.logger);
      return r;
    }),
} satisfies TRPCRouterRecord;
