import type { TRPCRouterRecord } from '@trpc/server';
import { creditsCreateCryptoPaymentOutput, subscribeInput, subscriptionIdInput, subscriptionOutput, subscriptionsListOutput } from '@proxyhub/core';
import { createPlanPayment } from '../services/money/payments';
import { cancelSubscription, listSubscriptions } from '../services/money/subscriptions';
import { limited } from '../limits';
import { scopedProcedure } from '../trpc';

/** `subscriptions.*`: the caller's plan subscriptions (paid on an invoice, as a crypto top-up). */
export const subscriptionsRouter = {
  subscribe: scopedProcedure('billing:write')
    .input(subscribeInput)
    .use(limited((ctx) => [['payment', ctx.user!.id]]))
    // The same invoice answer as a crypto top-up's: a plan is paid on that path.
    .output(creditsCreateCryptoPaymentOutput)
    .mutation(({ ctx, input }) => createPlanPayment(ctx.deps, { userId: ctx.user.id, planId: input.planId, idempotencyKey: input.idempotencyKey })),
  list: scopedProcedure('usage:read')
    .output(subscriptionsListOutput)
    .query(async ({ ctx }) => ({ subscriptions: await listSubscriptions(ctx.db, ctx.user.id) })),
  /** Stops renewal; the current period runs to its end. */
  cancel: scopedProcedure('billing:write')
    .input(subscriptionIdInput)
    .output(subscriptionOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => cancelSubscription(tx, { userId: ctx.user.id, id: input.id }))),
} satisfies TRPCRouterRecord;
