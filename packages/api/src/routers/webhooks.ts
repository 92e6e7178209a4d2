import type { TRPCRouterRecord } from '@trpc/server';
import { createWebhookInput, resendWebhookInput, webhookIdInput } from '@proxyhub/core';
import type { ApiConfig } from '../config';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, resendDelivery } from '../services/notify/webhooks';
import { userProcedure } from '../trpc';

/** Private webhook targets: allowed only where the server allows private egress (absent: tests and development). */
export const webhookPolicy = (config: ApiConfig) => ({ allowPrivate: config.upstreams?.allowPrivate ?? true });

export const webhooksRouter = {
  list: userProcedure.query(({ ctx }) => listWebhooks(ctx.db, ctx.user.id)),
  /** The signing secret is in this answer only. */
  create: userProcedure
    .input(createWebhookInput)
    .mutation(({ ctx, input }) =>
      ctx.db.transaction((tx) => createWebhook(tx, ctx.deps.secrets, { userId: ctx.user.id, ...input }, webhookPolicy(ctx.deps.config))),
    ),
  delete: userProcedure.input(webhookIdInput).mutation(({ ctx, input }) => ctx.db.transaction((tx) => deleteWebhook(tx, ctx.user.id, input.id))),
  deliveries: userProcedure.input(webhookIdInput).query(({ ctx, input }) => listDeliveries(ctx.db, ctx.user.id, input.id)),
  resend: userProcedure.input(resendWebhookInput).mutation(({ ctx, input }) => ctx.db.transaction((tx) => resendDelivery(tx, ctx.user.id, input))),
} satisfies TRPCRouterRecord;
