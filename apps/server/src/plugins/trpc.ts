import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import { appRouter, createContext, type ApiDeps, type AppRouter } from '@proxyhub/api';
import { DomainError } from '@proxyhub/core';
import { requestLike, responseLike } from '../request-adapter';

/** Largest tRPC batch accepted; the web client's batch link must not send more (httpBatchLink maxItems). */
export const MAX_TRPC_BATCH = 50;

/** The API at /trpc, with the same context as the REST shims. */
export async function trpc(app: FastifyInstance, { deps, onError }: { deps: ApiDeps; onError?: (path: string | undefined, code: string) => void }) {
  await app.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    trpcOptions: {
      router: appRouter,
      createContext: ({ req, res }) => createContext(deps, requestLike(req), responseLike(res)),
      onError({ error, path, req }) {
        onError?.(path, error.code);
        if (error.code === 'INTERNAL_SERVER_ERROR') req.log.error({ err: error.cause ?? error, path }, 'procedure failed');
      },
      // A batch is one request: cap it so one call cannot fan out into thousands of procedures.
      maxBatchSize: MAX_TRPC_BATCH,
      // Rate-limited calls say when to come back, as the REST shims do.
      responseMeta({ errors }) {
        const retry = errors.map((e) => (e.cause instanceof DomainError ? e.cause.details?.retryAfterSeconds : undefined)).find((s) => typeof s === 'number');
        return retry === undefined ? {} : { headers: { 'retry-after': String(retry) } };
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
  });
}
