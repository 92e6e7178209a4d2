import type { TRPCRouterRecord } from '@trpc/server';
import { createProxyAccountInput, proxyAccountInput, updateProxyAccountInput } from '@proxyhub/core';
import { createSubAccount, listProxyAccounts, rotateAccountPassword, updateProxyAccount } from '../services/proxy-accounts';
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
} satisfies TRPCRouterRecord;
