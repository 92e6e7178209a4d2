import type { TRPCRouterRecord } from '@trpc/server';
import { createPromotionInput, updatePromotionInput, adminCreatePromotionOutput, adminPromotionsOutput, adminUpdatePromotionOutput } from '@proxyhub/core';
import { createPromotion, listPromotions, setPromotionEnabled } from '../../services/money/promotions';
import { financeProcedure } from '../../trpc';

/** The Promotions tab. */
export const adminPromotionsProcedures = {
  /** Multi-use codes: credit (redeemed like a code) or bonus (more GB on a crypto top-up). */
  createPromotion: financeProcedure
    .input(createPromotionInput)
    .output(adminCreatePromotionOutput)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      promotion: await ctx.db.transaction((tx) =>
        createPromotion(tx, {
          ...input,
          createdByAdminId: ctx.admin?.id ?? null,
          createdBy: ctx.admin ? `admin:${ctx.admin.username}` : 'internal',
        }),
      ),
    })),
  promotions: financeProcedure.output(adminPromotionsOutput).query(({ ctx }) => listPromotions(ctx.db)),
  /** `enabled: false` stops a promotion at once. */
  updatePromotion: financeProcedure
    .input(updatePromotionInput)
    .output(adminUpdatePromotionOutput)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      promotion: await ctx.db.transaction((tx) => setPromotionEnabled(tx, input)),
    })),
} satisfies TRPCRouterRecord;
