import type { TRPCRouterRecord } from '@trpc/server';
import { createApiKeyInput, deleteApiKeyInput, apiKeysListOutput, apiKeysCreateOutput, apiKeysDeleteOutput } from '@proxyhub/core';
import { createApiKey, deleteApiKey, listApiKeys } from '../services/accounts/api-keys';
import { userProcedure } from '../trpc';

/** GET/POST /api/keys, DELETE /api/keys/:id: account administration, so a session or the Default key. */
export const apiKeysRouter = {
  list: userProcedure.output(apiKeysListOutput).query(({ ctx }) => listApiKeys(ctx.db, ctx.deps.secrets, ctx.user.id)),
  create: userProcedure
    .input(createApiKeyInput)
    .output(apiKeysCreateOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => createApiKey(tx, ctx.deps.secrets, ctx.user.id, input))),
  delete: userProcedure
    .input(deleteApiKeyInput)
    .output(apiKeysDeleteOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => deleteApiKey(tx, ctx.user.id, input.id))),
} satisfies TRPCRouterRecord;
