import type { TRPCRouterRecord } from '@trpc/server';
import {
  connectionInput,
  connectionsInput,
  usageBurnInput,
  usageHistoryInput,
  usageHistoryOutput,
  usageConnectionsOutput,
  usageConnectionOutput,
  usageBurnOutput,
} from '@proxyhub/core';
import { allConnections, connectionById, listConnections } from '../services/connection-log/reads';
import { usageBurn } from '../services/usage/usage-burn';
import { userUsageHistory } from '../services/usage/usage-history';
import { scopedProcedure } from '../trpc';

export const usageRouter = {
  /** The user's traffic by hour or day, with totals and the same bytes by country and by proxy account. */
  history: scopedProcedure('usage:read')
    .input(usageHistoryInput)
    .output(usageHistoryOutput)
    .query(({ ctx, input }) => userUsageHistory(ctx.db, ctx.user.id, input)),
  /** The user's connection log, newest first, a page at a time. */
  connections: scopedProcedure('usage:read')
    .input(connectionsInput)
    .output(usageConnectionsOutput)
    .query(({ ctx, input }) => listConnections(ctx.db, ctx.user.id, input)),
  /** One record of the user's log by the id its connection's answers carried (X-ProxyHub-Connection). */
  connection: scopedProcedure('usage:read')
    .input(connectionInput)
    .output(usageConnectionOutput)
    .query(({ ctx, input }) => connectionById(ctx.db, ctx.user.id, input.id)),
  /** The whole range (at most 31 days), for the CSV export. */
  connectionsAll: scopedProcedure('usage:read')
    .input(connectionsInput)
    .query(({ ctx, input }) => allConnections(ctx.db, ctx.user.id, input)),
  /** The bandwidth-burn advisor: billed bytes to analytics, ads, fonts, media CDNs, telemetry and captcha hosts, priced at the caller's rate. */
  burn: scopedProcedure('usage:read')
    .input(usageBurnInput)
    .output(usageBurnOutput)
    .query(({ ctx, input }) => usageBurn(ctx.db, ctx.user.id, input)),
} satisfies TRPCRouterRecord;
