import type { TRPCRouterRecord } from '@trpc/server';

export const locationsRouter = {} satisfies TRPCRouterRecord;
