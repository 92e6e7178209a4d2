import type { TRPCRouterRecord } from '@trpc/server';
import { referralSummary } from '../services/money/referrals';
import { userProcedure } from '../trpc';

export const referralsRouter = {
  /** The caller's referral link, how many signed up with it, and what they earned. */
  summary: userProcedure.query(({ ctx }) => referralSummary(ctx.db, { userId: ctx.user.id, publicUrl: ctx.deps.config.publicUrl })),
} satisfies TRPCRouterRecord;
