import type { TRPCRouterRecord } from '@trpc/server';
import { connectionInput, connectionsInput, usageBurnInput, usageHistoryInput } from '@proxyhub/core';
import { allConnections, connectionById, listConnections } from '../services/connection-log/reads';
import { usageBurn } from '../services/usage/usage-burn';
import { userUsageHistory } from '../services/usage/usage-history';
import { userProcedure } from '../trpc';

export const usageRouter = {
  /** The user's traffic by hour or day, with totals and the same bytes by country and by proxy account. */
  history: userProcedure.input(usageHistoryInput).query(({ ctx, input }) => userUsageHistory(ctx.db, ctx.user.id, input)),
  /** The user's connection log, newest first, a page at a time. */
  connections: userProcedure.input(connectionsInput).query(({ ctx, input }) => listConnections(ctx.db, ctx.user.id, input)),
  /** One record of the user's log by the id its connection's answers carried (X-ProxyHub-Connection). */
  connection: userProcedure.input(connectionInput).query(({ ctx, input }) => connectionById(ctx.db, ctx.user.id, input.id)),
  /** The whole range (at most 31 days), for the CSV export. */
  connectionsAll: userProcedure.input(connectionsInput).query(({ ctx, input }) => allConnections(ctx.db, ctx.user.id, input)),
  /** The bandwidth-burn advisor: billed bytes to analytics, ads, fonts, media CDNs, telemetry and captcha hosts, priced at the caller's rate. */
  burn: userProcedure.input(usageBurnInput).query(({ ctx, input }) => usageBurn(ctx.db, ctx.user.id, input)),
} satisfies TRPCRouterRecord;
