import type { TRPCRouterRecord } from '@trpc/server';
import {
  blockTargetsInput,
  createProxyAccountInput,
  proxyAccountInput,
  proxyTestInput,
  rotateLineInput,
  setTargetRulesInput,
  targetRulesAccountInput,
  updateProxyAccountInput,
  proxyAccountsListOutput,
  proxyAccountsCreateOutput,
  proxyAccountsUpdateOutput,
  proxyAccountsRotatePasswordOutput,
  proxyAccountsTestOutput,
  proxyAccountsRotateLineOutput,
  proxyAccountsTargetRulesOutput,
  proxyAccountsSetTargetRulesOutput,
  proxyAccountsBlockTargetsOutput,
} from '@proxyhub/core';
import { limited } from '../limits';
import { createSubAccount, listProxyAccounts, rotateAccountPassword, updateProxyAccount } from '../services/accounts/proxy-accounts';
import { blockTargets, getTargetRules, setTargetRules } from '../services/accounts/target-rules';
import { rotateLine } from '../services/network/line-rotations';
import { proxyTestOptions, testProxyLine } from '../services/network/proxy-test';
import { scopedProcedure } from '../trpc';

export const proxyAccountsRouter = {
  /** The user's proxy accounts (main, batch, sub) with their credentials, caps and usage. */
  list: scopedProcedure('accounts:read')
    .output(proxyAccountsListOutput)
    .query(({ ctx }) => listProxyAccounts(ctx.db, ctx.deps.secrets, ctx.user.id)),
  create: scopedProcedure('accounts:write')
    .input(createProxyAccountInput)
    .output(proxyAccountsCreateOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => createSubAccount(tx, ctx.deps.secrets, ctx.user.id, input))),
  update: scopedProcedure('accounts:write')
    .input(updateProxyAccountInput)
    .output(proxyAccountsUpdateOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => updateProxyAccount(tx, ctx.deps.secrets, ctx.user.id, input))),
  rotatePassword: scopedProcedure('accounts:write')
    .input(proxyAccountInput)
    .output(proxyAccountsRotatePasswordOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => rotateAccountPassword(tx, ctx.deps.secrets, ctx.user.id, input.proxyUserId))),
  /** One of the caller's lines tried once through the gateway, unbilled: the exit address and its country, or why not. */
  test: scopedProcedure('lines:generate')
    .input(proxyTestInput)
    .use(limited((ctx) => [['proxyTest', ctx.user!.id]]))
    .output(proxyAccountsTestOutput)
    .mutation(({ ctx, input }) => {
      return testProxyLine(ctx.db, ctx.deps.secrets, { userId: ctx.user.id, username: input.username }, proxyTestOptions(ctx.deps.config));
    }),
  /** "A new IP now" (POST /api/lines/rotate): one of the caller's sticky lines gets a new upstream session on every gateway. */
  rotateLine: scopedProcedure('accounts:write')
    .input(rotateLineInput)
    .use(limited((ctx) => [['lineRotate', ctx.user!.id]]))
    .output(proxyAccountsRotateLineOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => rotateLine(tx, ctx.user.id, input.username))),
  /** An account's own target rules (`id`: `main` or a proxy user id of the caller's). */
  targetRules: scopedProcedure('accounts:read')
    .input(targetRulesAccountInput)
    .output(proxyAccountsTargetRulesOutput)
    .query(({ ctx, input }) => getTargetRules(ctx.db, ctx.user.id, input.id)),
  /** Replaces them; every gateway applies them within 10 s. */
  setTargetRules: scopedProcedure('accounts:write')
    .input(setTargetRulesInput)
    .output(proxyAccountsSetTargetRulesOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => setTargetRules(tx, ctx.user.id, input))),
  /** "Block for this account": hosts merged into the account's deny rules. */
  blockTargets: scopedProcedure('accounts:write')
    .input(blockTargetsInput)
    .output(proxyAccountsBlockTargetsOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => blockTargets(tx, ctx.user.id, input))),
} satisfies TRPCRouterRecord;
