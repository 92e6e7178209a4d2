import type { TRPCRouterRecord } from '@trpc/server';
import { LOCAL_GATEWAY_HOST } from '@proxyhub/core';
import { publicProcedure } from '../trpc';

export const gatewayRouter = {
  /**
   * The endpoint the proxy generator prints. `host` null means "the host the page was served
   * from" (localhost:3001 in development, as the spec says); production sets GATEWAY_PUBLIC_HOST.
   */
  endpoint: publicProcedure.query(({ ctx }) => ({
    host: ctx.deps.config.gateway.publicHost,
    port: ctx.deps.config.gateway.publicPort,
    localHost: LOCAL_GATEWAY_HOST,
  })),
} satisfies TRPCRouterRecord;
