import type { TRPCRouterRecord } from '@trpc/server';
import { sitePageInput, siteStatusOutput, sitePageOutput, siteSellerOutput } from '@proxyhub/core';
import type { ApiDeps } from '../deps';
import { fleetStatus, type FleetStatus } from '../services/gateway/fleet-status';
import { GATEWAY_DOWN_AFTER_MS } from '../services/gateway/gateway-fleet';
import { getSeller } from '../services/site/seller';
import { readSitePage } from '../services/site/site-pages';
import { publicProcedure } from '../trpc';

const STATUS_CACHE_MS = 5000;
/** Per server: the last answer and when it was computed (a public page must not cost a query per visit). */
const lastStatus = new WeakMap<ApiDeps, { at: number; answer: Promise<FleetStatus> }>();

function cachedStatus(deps: ApiDeps): Promise<FleetStatus> {
  const ttl = deps.config.statusCacheMs ?? STATUS_CACHE_MS;
  const hit = lastStatus.get(deps);
  if (hit && Date.now() - hit.at < ttl) return hit.answer;
  const answer = fleetStatus(deps.db, { downAfterMs: deps.config.gatewayDownAfterMs ?? GATEWAY_DOWN_AFTER_MS });
  lastStatus.set(deps, { at: Date.now(), answer });
  // A failed read is not kept: the next visitor tries again.
  answer.catch(() => lastStatus.get(deps)?.answer === answer && lastStatus.delete(deps));
  return answer;
}

/** The public site's data: the status page, the operator's Markdown pages and the seller they name. */
export const siteRouter = {
  status: publicProcedure.output(siteStatusOutput).query(({ ctx }) => cachedStatus(ctx.deps)),
  page: publicProcedure
    .input(sitePageInput)
    .output(sitePageOutput)
    .query(async ({ ctx, input }) => readSitePage(ctx.deps.config.contentDir, input.slug, await getSeller(ctx.db))),
  /** The footer's company and support email, and the legal pages' fields. */
  seller: publicProcedure.output(siteSellerOutput).query(({ ctx }) => getSeller(ctx.db)),
} satisfies TRPCRouterRecord;
