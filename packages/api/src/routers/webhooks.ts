import type { TRPCRouterRecord } from '@trpc/server';
import {
  createWebhookInput,
  resendWebhookInput,
  webhookIdInput,
  webhooksListOutput,
  webhooksCreateOutput,
  webhooksDeleteOutput,
  webhooksDeliveriesOutput,
  webhooksResendOutput,
} from '@proxyhub/core';
import type { ApiConfig } from '../config';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, resendDelivery } from '../services/notify/webhooks';
import { scopedProcedure } from '../trpc';

/** Private webhook targets: allowed only where the server allows private egress (absent: tests and development). */
export const webhookPolicy = (config: ApiConfig) => ({ allowPrivate: config.upstreams?.allowPrivate ?? true });

export const webhooksRouter = {
  list: scopedProcedure('accounts:read')
    .output(webhooksListOutput)
    .query(({ ctx }) => listWebhooks(ctx.db, ctx.user.id)),
  /** The signing secret is in this answer only. */
  create: scopedProcedure('accounts:write')
    .input(createWebhookInput)
    .output(webhooksCreateOutput)
    .mutation(({ ctx, input }) =>
      ctx.db.transaction((tx) => createWebhook(tx, ctx.deps.secrets, { userId: ctx.user.id, ...input }, webhookPolicy(ctx.deps.config))),
    ),
  delete: scopedProcedure('accounts:write')
    .input(webhookIdInput)
    .output(webhooksDeleteOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => deleteWebhook(tx, ctx.user.id, input.id))),
  deliveries: scopedProcedure('accounts:read')
    .input(webhookIdInput)
    .output(webhooksDeliveriesOutput)
    .query(({ ctx, input }) => listDeliveries(ctx.db, ctx.user.id, input.id)),
  resend: scopedProcedure('accounts:write')
    .input(resendWebhookInput)
    .output(webhooksResendOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => resendDelivery(tx, ctx.user.id, input))),
} satisfies TRPCRouterRecord;
