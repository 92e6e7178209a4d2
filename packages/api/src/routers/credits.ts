import type { TRPCRouterRecord } from '@trpc/server';
import { createBatchInput, cryptoPaymentInput, processBatchInput, redeemCodeInput } from '@proxyhub/core';
import { createBatch, processBatch } from '../services/batches';
import { redeemCode } from '../services/codes';
import { createCryptoPayment, listUserPayments } from '../services/payments';
import { adminOrInternalProcedure, userProcedure } from '../trpc';

export const creditsRouter = {
  /** Rate limited per IP and per user: codes must not be guessable by brute force. */
  redeem: userProcedure.input(redeemCodeInput).mutation(async ({ ctx, input }) => {
    await ctx.deps.rateLimiter.consume('redeem', ctx.req.ip);
    await ctx.deps.rateLimiter.consume('redeemUser', ctx.user.id);
    const result = await ctx.db.transaction((tx) => redeemCode(tx, { userId: ctx.user.id, code: input.code }));
    // Only failed guesses count: a buyer redeeming many real codes in a row is not brute force.
    await ctx.deps.rateLimiter.refund('redeem', ctx.req.ip);
    await ctx.deps.rateLimiter.refund('redeemUser', ctx.user.id);
    return result;
  }),
  createCryptoPayment: userProcedure.input(cryptoPaymentInput).mutation(async ({ ctx, input }) => {
    await ctx.deps.rateLimiter.consume('payment', ctx.user.id);
    return createCryptoPayment(ctx.deps, { userId: ctx.user.id, gbAmount: input.gbAmount, priceUsd: input.priceUsd });
  }),
  payments: userProcedure.query(({ ctx }) => listUserPayments(ctx.db, ctx.user.id)),
  processBatch: userProcedure.input(processBatchInput).mutation(async ({ ctx, input }) => {
    await ctx.deps.rateLimiter.consume('batch', `ip:${ctx.req.ip}`);
    await ctx.deps.rateLimiter.consume('batch', `user:${ctx.user.id}`);
    return ctx.db.transaction((tx) => processBatch(tx, { userId: ctx.user.id, batchId: input.batchId }));
  }),
  createBatch: adminOrInternalProcedure
    .input(createBatchInput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => createBatch(tx, ctx.deps.secrets, input))),
} satisfies TRPCRouterRecord;
