import type { TRPCRouterRecord } from '@trpc/server';
import {
  telegramBroadcastInput,
  telegramStatusOutput,
  telegramLinkOutput,
  telegramUnlinkOutput,
  adminTelegramStatusOutput,
  adminTelegramLinkOutput,
  adminTelegramUnlinkOutput,
  adminTelegramBroadcastOutput,
} from '@proxyhub/core';
import { kickTelegram, type ApiDeps } from '../deps';
import { issueTelegramLinkCode, queueBroadcast, telegramLinkOf, unlinkTelegram, type ChatOwner } from '../services/notify/telegram';
import { adminOrInternalProcedure, adminProcedure, userProcedure } from '../trpc';

const botUsername = (deps: ApiDeps) => deps.telegram?.botUsername ?? null;

/** Whether the bot is on, and the chat linked to this account. */
async function linkStatus(deps: ApiDeps, owner: ChatOwner) {
  return { enabled: botUsername(deps) !== null, botUsername: botUsername(deps), chat: await telegramLinkOf(deps.db, owner) };
}

const userOwner = (ctx: { user?: { id: string } | null }): ChatOwner => ({ userId: ctx.user!.id });
const adminOwner = (ctx: { admin?: { id: string } | null }): ChatOwner => ({ adminId: ctx.admin!.id });

/** Settings' "Connect Telegram" card. */
export const telegramRouter = {
  status: userProcedure.output(telegramStatusOutput).query(({ ctx }) => linkStatus(ctx.deps, userOwner(ctx))),
  /** A one-time code (10 minutes) and the t.me link that sends it to the bot. */
  link: userProcedure
    .output(telegramLinkOutput)
    .mutation(({ ctx }) => ctx.db.transaction((tx) => issueTelegramLinkCode(tx, userOwner(ctx), botUsername(ctx.deps)))),
  unlink: userProcedure
    .output(telegramUnlinkOutput)
    .mutation(async ({ ctx }) => ({ unlinked: await ctx.db.transaction((tx) => unlinkTelegram(tx, userOwner(ctx))) })),
} satisfies TRPCRouterRecord;

/** The admin panel's Telegram card and broadcast; merged into the admin router. */
export const adminTelegramProcedures = {
  telegramStatus: adminProcedure.output(adminTelegramStatusOutput).query(({ ctx }) => linkStatus(ctx.deps, adminOwner(ctx))),
  telegramLink: adminProcedure
    .output(adminTelegramLinkOutput)
    .mutation(({ ctx }) => ctx.db.transaction((tx) => issueTelegramLinkCode(tx, adminOwner(ctx), botUsername(ctx.deps)))),
  telegramUnlink: adminProcedure
    .output(adminTelegramUnlinkOutput)
    .mutation(async ({ ctx }) => ({ unlinked: await ctx.db.transaction((tx) => unlinkTelegram(tx, adminOwner(ctx))) })),
  /** One message to every linked chat, through the outbox (Telegram's rate limits apply there). */
  telegramBroadcast: adminOrInternalProcedure
    .input(telegramBroadcastInput)
    .output(adminTelegramBroadcastOutput)
    .mutation(async ({ ctx, input }) => {
      const sent = await ctx.db.transaction((tx) => queueBroadcast(tx, input.text));
      kickTelegram(ctx.deps);
      return { success: true as const, sent };
    }),
} satisfies TRPCRouterRecord;
