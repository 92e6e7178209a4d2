import { plansListOutput } from '@proxyhub/core';
import { listPlans } from '../services/money/plans';
import { publicProcedure, router } from '../trpc';

/** `plans.*`: what a customer can subscribe to (public: the pricing page lists them before sign-in). */
export const plansRouter = router({
  list: publicProcedure.output(plansListOutput).query(async ({ ctx }) => ({ plans: await listPlans(ctx.db, { activeOnly: true }) })),
});
