import type { TRPCRouterRecord } from '@trpc/server';
import {
  cancelCryptoPaymentInput,
  createBatchInput,
  cryptoPaymentInput,
  processBatchInput,
  promoPreviewInput,
  redeemCodeInput,
  creditsRedeemOutput,
  creditsCreateCryptoPaymentOutput,
  creditsCancelCryptoPaymentOutput,
  creditsPromoPreviewOutput,
  creditsPricingOutput,
  creditsPaymentsOutput,
  creditsProcessBatchOutput,
  creditsCreateBatchOutput,
} from '@proxyhub/core';
import { checkBalanceAlerts } from '../services/notify/balance-alerts';
import { createBatch, processBatch } from '../services/accounts/batches';
import { redeemCode } from '../services/money/topup-codes';
import { cancelCryptoPayment, createCryptoPayment, listUserPayments } from '../services/money/payments';
import { isPromotionCode, previewPromotion, redeemPromotion } from '../services/money/promotions';
import { clientKey, limited } from '../limits';
import { adminOrInternalProcedure, publicProcedure, scopedProcedure } from '../trpc';
import { publicPricing } from '../services/money/pricing';

export const creditsRouter = {
  /** Rate limited per IP and per user: codes must not be guessable by brute force. */
  redeem: scopedProcedure('billing:write')
    .input(redeemCodeInput)
    // Only failed guesses count: a buyer redeeming many real codes in a row is not brute force.
    .use(
      limited(
        (ctx) => [
          ['redeem', clientKey(ctx)],
          ['redeemUser', ctx.user!.id],
        ],
        { failuresOnly: true },
      ),
    )
    .output(creditsRedeemOutput)
    .mutation(async ({ ctx, input }) => {
      // Promotions and top-up codes share one space of codes: a promotion's code is never a top-up code.
      const result = await ctx.db.transaction(async (tx) =>
        (await isPromotionCode(tx, input.code))
          ? redeemPromotion(tx, { userId: ctx.user.id, code: input.code })
          : redeemCode(tx, { userId: ctx.user.id, code: input.code }),
      );
      await checkBalanceAlerts(ctx.db, ctx.deps, [ctx.user.id], ctx.deps.logger); // a top-up re-arms the alerts
      return result;
    }),
  createCryptoPayment: scopedProcedure('billing:write')
    .input(cryptoPaymentInput)
    .use(limited((ctx) => [['payment', ctx.user!.id]]))
    .output(creditsCreateCryptoPaymentOutput)
    .mutation(({ ctx, input }) =>
      createCryptoPayment(ctx.deps, {
        userId: ctx.user.id,
        gbAmount: input.gbAmount,
        priceUsd: input.priceUsd,
        promoCode: input.promoCode,
        idempotencyKey: input.idempotencyKey,
      }),
    ),
  /** Gives up one of the user's orders still waiting for payment. */
  cancelCryptoPayment: scopedProcedure('billing:write')
    .input(cancelCryptoPaymentInput)
    .output(creditsCancelCryptoPaymentOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => cancelCryptoPayment(tx, { userId: ctx.user.id, paymentId: input.paymentId }))),
  /** The bonus a promo code would add to an order of this size (the Top Up page shows it before paying). */
  promoPreview: scopedProcedure('billing:write')
    .input(promoPreviewInput)
    .use(limited((ctx) => [['promoPreview', ctx.user!.id]], { failuresOnly: true }))
    .output(creditsPromoPreviewOutput)
    .query(({ ctx, input }) => ctx.db.transaction((tx) => previewPromotion(tx, { userId: ctx.user.id, code: input.code, gbAmount: input.gbAmount }))),
  /** The price list in force (public: the landing page and the API docs show it). */
  pricing: publicProcedure.output(creditsPricingOutput).query(({ ctx }) => publicPricing(ctx.db, ctx.user?.id)),
  payments: scopedProcedure('usage:read')
    .output(creditsPaymentsOutput)
    .query(({ ctx }) => listUserPayments(ctx.db, ctx.user.id)),
  processBatch: scopedProcedure('billing:write')
    .input(processBatchInput)
    .use(
      limited((ctx) => [
        ['batch', `ip:${clientKey(ctx)}`],
        ['batch', `user:${ctx.user!.id}`],
      ]),
    )
    .output(creditsProcessBatchOutput)
    .mutation(async ({ ctx, input }) => {
      const result = await ctx.db.transaction((tx) => processBatch(tx, { userId: ctx.user.id, batchId: input.batchId }));
      await checkBalanceAlerts(ctx.db, ctx.deps, [ctx.user.id], ctx.deps.logger);
      return result;
    }),
  createBatch: adminOrInternalProcedure
    .input(createBatchInput)
    .output(creditsCreateBatchOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => createBatch(tx, ctx.deps.secrets, input))),
} satisfies TRPCRouterRecord;
