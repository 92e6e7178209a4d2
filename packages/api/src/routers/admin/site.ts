import type { TRPCRouterRecord } from '@trpc/server';
import { sellerInput, adminSellerOutput, adminSetSellerOutput } from '@proxyhub/core';
import { sellerForAdmin, setSeller } from '../../services/site/seller';
import { financeProcedure, ownerProcedure } from '../../trpc';

/** The Site tab (admin.*): the seller named on the site, in mails and on receipts. */
export const adminSiteProcedures = {
  /** The settings and those still at their shipped placeholders (the overview warns while any is). */
  seller: financeProcedure.output(adminSellerOutput).query(({ ctx }) => sellerForAdmin(ctx.db)),
  /** Owners only; audit-logged with its input, as every admin mutation. */
  setSeller: ownerProcedure
    .input(sellerInput)
    .output(adminSetSellerOutput)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      ...(await ctx.db.transaction((tx) => setSeller(tx, input))),
    })),
} satisfies TRPCRouterRecord;
