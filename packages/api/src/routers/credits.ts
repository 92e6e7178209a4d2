import type { TRPCRouterRecord } from '@trpc/server';

export const creditsRouter = {} satisfies TRPCRouterRecord;
