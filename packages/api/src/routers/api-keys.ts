import type { TRPCRouterRecord } from '@trpc/server';
import { apiKeysCreateOutput, apiKeysDeleteOutput, apiKeysListOutput, createApiKeyInput, deleteApiKeyInput, TEAM_ROLE_SCOPES } from '@proxyhub/core';
import { createApiKey, deleteApiKey, listApiKeys } from '../services/accounts/api-keys';
import { teamProcedure } from '../trpc';

/**
 * GET/POST /api/keys, DELETE /api/keys/:id: a session or the Default key; on a team's account its
 * admins, and its developers for keys with at most their own scopes.
 */
export const apiKeysRouter = {
  list: teamProcedure('keys:manage')
    .output(apiKeysListOutput)
    .query(({ ctx }) => listApiKeys(ctx.db, ctx.deps.secrets, ctx.user.id)),
  create: teamProcedure('keys:manage')
    .input(createApiKeyInput)
    .output(apiKeysCreateOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => createApiKey(tx, ctx.deps.secrets, ctx.user.id, input, withinRole(ctx.actor)))),
  delete: teamProcedure('keys:manage')
    .input(deleteApiKeyInput)
    .output(apiKeysDeleteOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => deleteApiKey(tx, ctx.user.id, input.id, withinRole(ctx.actor)))),
} satisfies TRPCRouterRecord;

/** A member's keys may hold at most the scopes of their role. */
const withinRole = (actor: { role: keyof typeof TEAM_ROLE_SCOPES } | null) => (actor ? { role: actor.role, scopes: TEAM_ROLE_SCOPES[actor.role] } : null);
