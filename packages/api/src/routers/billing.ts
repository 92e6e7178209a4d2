import type { TRPCRouterRecord } from '@trpc/server';
import { billingListInput, receiptInput, billingListOutput, billingReceiptOutput } from '@proxyhub/core';
import { listBilling, paymentReceipt } from '../services/money/billing';
import { scopedProcedure } from '../trpc';

export const billingRouter = {
  /** Credit entries and crypto orders, newest first, a page at a time. */
  list: scopedProcedure('usage:read')
    .input(billingListInput)
    .output(billingListOutput)
    .query(({ ctx, input }) => listBilling(ctx.db, ctx.user.id, input ?? {})),

  /** The receipt of one of the user's paid crypto orders. */
  receipt: scopedProcedure('usage:read')
    .input(receiptInput)
    .output(billingReceiptOutput)
    .query(({ ctx, input }) => paymentReceipt(ctx.db, ctx.user.id, input.paymentId)),
} satisfies TRPCRouterRecord;
