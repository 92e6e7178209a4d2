import { referralsSummaryOutput } from '@proxyhub/core';
import type { TRPCRouterRecord } from '@trpc/server';
import { referralSummary } from '../services/money/referrals';
import { scopedProcedure } from '../trpc';

export const referralsRouter = {
  /** The caller's referral link, how many signed up with it, and what they earned. */
  summary: scopedProcedure('usage:read')
    .output(referralsSummaryOutput)
    .query(({ ctx }) => referralSummary(ctx.db, { userId: ctx.user.id, publicUrl: ctx.deps.config.publicUrl })),
} satisfies TRPCRouterRecord;
