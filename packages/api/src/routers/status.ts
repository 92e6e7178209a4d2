import type { TRPCRouterRecord } from '@trpc/server';
import {
  statusSubscribeInput,
  statusTokenInput,
  type QualityBoard,
  statusQualityOutput,
  statusSubscribeOutput,
  statusConfirmOutput,
  statusUnsubscribeOutput,
} from '@proxyhub/core';
import { inBackground, type ApiDeps } from '../deps';
import { clientKey, limited } from '../limits';
import { qualityBoard } from '../services/status/quality-board';
import { confirmSubscription, subscribeEmail, SUBSCRIBE_MESSAGE, unsubscribe } from '../services/status/status-subscriptions';
import { publicProcedure } from '../trpc';

const QUALITY_CACHE_MS = 60_000;
/** Per server: the last board and when it was read (a public page must not cost a query per visit). */
const lastBoard = new WeakMap<ApiDeps, { at: number; answer: Promise<QualityBoard> }>();

function cachedBoard(deps: ApiDeps): Promise<QualityBoard> {
  const ttl = deps.config.quality?.cacheMs ?? QUALITY_CACHE_MS;
  const hit = lastBoard.get(deps);
  if (hit && Date.now() - hit.at < ttl) return hit.answer;
  const answer = qualityBoard(deps.db);
  lastBoard.set(deps, { at: Date.now(), answer });
  // A failed read is not kept: the next visitor tries again.
  answer.catch(() => lastBoard.get(deps)?.answer === answer && lastBoard.delete(deps));
  return answer;
}

/** The status page's quality board and its incident mails. */
export const statusRouter = {
  quality: publicProcedure.output(statusQualityOutput).query(({ ctx }) => cachedBoard(ctx.deps)),
  subscribe: publicProcedure
    .input(statusSubscribeInput)
    .use(
      limited((ctx, input: { email: string }) => [
        ['statusSubscribe', clientKey(ctx)],
        ['statusSubscribeEmail', input.email],
      ]),
    )
    .output(statusSubscribeOutput)
    .mutation(async ({ ctx, input }) => {
      const mail = await ctx.db.transaction((tx) => subscribeEmail(tx, input.email, ctx.deps.config.publicUrl, ctx.req.locale));
      // After the answer: whether a mail goes (not to a confirmed address) must not show in its timing.
      if (mail) inBackground(ctx.deps, 'status subscription mail', () => ctx.deps.mailer.send(mail));
      return { success: true as const, message: SUBSCRIBE_MESSAGE };
    }),
  confirm: publicProcedure
    .input(statusTokenInput)
    .use(limited((ctx) => [['statusLink', clientKey(ctx)]]))
    .output(statusConfirmOutput)
    .mutation(async ({ ctx, input }) => {
      const r = await ctx.db.transaction((tx) => confirmSubscription(tx, input.token));
      return { success: true as const, message: `Subscribed: ${r.email} will get a mail when a country becomes degraded and when it recovers.` };
    }),
  unsubscribe: publicProcedure
    .input(statusTokenInput)
    .use(limited((ctx) => [['statusLink', clientKey(ctx)]]))
    .output(statusUnsubscribeOutput)
    .mutation(async ({ ctx, input }) => {
      const r = await ctx.db.transaction((tx) => unsubscribe(tx, input.token));
      return { success: true as const, message: `Unsubscribed: ${r.email} will get no more status mails.` };
    }),
} satisfies TRPCRouterRecord;
