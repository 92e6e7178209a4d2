import type { TRPCRouterRecord } from '@trpc/server';
import { proxyListInput, proxyLinesListOutput } from '@proxyhub/core';
import { proxyList, requestHostname } from '../services/network/proxy-list';
import { scopedProcedure } from '../trpc';

export const proxyLinesRouter = {
  /** GET /api/proxy-list: the generator's lines for one of the caller's proxy accounts. */
  list: scopedProcedure('lines:generate')
    .input(proxyListInput)
    .output(proxyLinesListOutput)
    .query(({ ctx, input }) =>
      proxyList(
        ctx.db,
        ctx.deps.secrets,
        {
          endpoint: {
            publicHost: ctx.deps.config.gateway.publicHost,
            publicPort: ctx.deps.config.gateway.publicPort,
            requestHost: requestHostname(ctx.req.header('host')),
          },
          egress: ctx.deps.config,
        },
        ctx.user.id,
        input,
      ),
    ),
} satisfies TRPCRouterRecord;
