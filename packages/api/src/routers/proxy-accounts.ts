import type { TRPCRouterRecord } from '@trpc/server';
import { createProxyAccountInput, proxyAccountInput, proxyTestInput, rotateLineInput, updateProxyAccountInput } from '@proxyhub/core';
import { limited } from '../limits';
import { createSubAccount, listProxyAccounts, rotateAccountPassword, updateProxyAccount } from '../services/accounts/proxy-accounts';
import { rotateLine } from '../services/network/line-rotations';
import { proxyTestOptions, testProxyLine } from '../services/network/proxy-test';
import { userProcedure } from '../trpc';

export const proxyAccountsRouter = {
  /** The user's proxy accounts (main, batch, sub) with their credentials, caps and usage. */
  list: userProcedure.query(({ ctx }) => listProxyAccounts(ctx.db, ctx.deps.secrets, ctx.user.id)),
  create: userProcedure
    .input(createProxyAccountInput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => createSubAccount(tx, ctx.deps.secrets, ctx.user.id, input))),
  update: userProcedure
    .input(updateProxyAccountInput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => updateProxyAccount(tx, ctx.deps.secrets, ctx.user.id, input))),
  rotatePassword: userProcedure
    .input(proxyAccountInput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => rotateAccountPassword(tx, ctx.deps.secrets, ctx.user.id, input.proxyUserId))),
  /** One of the caller's lines tried once through the gateway, unbilled: the exit address and its country, or why not. */
  test: userProcedure
    .input(proxyTestInput)
    .use(limited((ctx) => [['proxyTest', ctx.user!.id]]))
    .mutation(({ ctx, input }) => {
      return testProxyLine(ctx.db, ctx.deps.secrets, { userId: ctx.user.id, username: input.username }, proxyTestOptions(ctx.deps.config));
    }),
  /** "A new IP now" (POST /api/lines/rotate): one of the caller's sticky lines gets a new upstream session on every gateway. */
  rotateLine: userProcedure
    .input(rotateLineInput)
    .use(limited((ctx) => [['lineRotate', ctx.user!.id]]))
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => rotateLine(tx, ctx.user.id, input.username))),
} satisfies TRPCRouterRecord;
