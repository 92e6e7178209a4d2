import type { TRPCRouterRecord } from '@trpc/server';

export const adminRouter = {} satisfies TRPCRouterRecord;
