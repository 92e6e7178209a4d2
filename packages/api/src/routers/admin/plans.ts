import type { TRPCRouterRecord } from '@trpc/server';
import {
  createPlanInput,
  planIdInput,
  updatePlanInput,
  adminPlansOutput,
  adminCreatePlanOutput,
  adminUpdatePlanOutput,
  adminDeletePlanOutput,
} from '@proxyhub/core';
import { createPlan, deletePlan, listPlansForAdmin, updatePlan } from '../../services/money/plans';
import { financeProcedure } from '../../trpc';

/** The Plans tab: the allowances sold besides pay-as-you-go. */
export const adminPlansProcedures = {
  plans: financeProcedure.output(adminPlansOutput).query(async ({ ctx }) => ({ plans: await listPlansForAdmin(ctx.db) })),
  createPlan: financeProcedure
    .input(createPlanInput)
    .output(adminCreatePlanOutput)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      plan: await ctx.db.transaction((tx) => createPlan(tx, input)),
    })),
  /** `active: false` takes no new subscriptions; the plan's current subscribers keep theirs. */
  updatePlan: financeProcedure
    .input(updatePlanInput)
    .output(adminUpdatePlanOutput)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      plan: await ctx.db.transaction((tx) => updatePlan(tx, input)),
    })),
  deletePlan: financeProcedure
    .input(planIdInput)
    .output(adminDeletePlanOutput)
    .mutation(async ({ ctx, input }) => {
      await ctx.db.transaction((tx) => deletePlan(tx, input.id));
      return { success: true as const };
    }),
} satisfies TRPCRouterRecord;
