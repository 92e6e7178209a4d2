import type { TRPCRouterRecord } from '@trpc/server';
import { setPricingInput, setUserPriceInput, adminSetPricingOutput, adminSetUserPriceOutput } from '@proxyhub/core';
import { setPricing, setUserPrice } from '../../services/money/pricing';
import { financeProcedure } from '../../trpc';

/** The Pricing tab: the price list and one user's own rate. */
export const adminPricingProcedures = {
  /** The price list every crypto order is priced from. */
  setPricing: financeProcedure
    .input(setPricingInput)
    .output(adminSetPricingOutput)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      pricing: await ctx.db.transaction((tx) => setPricing(tx, input)),
    })),
  /** One user's own rate (cents per GB), or null for the price list's. */
  setUserPrice: financeProcedure
    .input(setUserPriceInput)
    .output(adminSetUserPriceOutput)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      user: await ctx.db.transaction((tx) => setUserPrice(tx, input)),
    })),
} satisfies TRPCRouterRecord;
