import { Transform } from 'node:stream';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import { appRouter, createContext, isInternalCaller, type ApiDeps, type AppRouter } from '@proxyhub/api';
import { DomainError } from '@proxyhub/core';
import { requestLike, responseLike } from '../request-adapter';

/** Largest tRPC batch accepted; the web client's batch link must not send more (httpBatchLink maxItems). */
export const MAX_TRPC_BATCH = 50;

/**
 * Bodies the internal key may send to /trpc: a gateway's usage report names every lease it holds
 * and its batched logins and lease requests carry up to a thousand items, far past the app's
 * 64 KiB. Everyone else keeps the app's limit.
 */
export const INTERNAL_BODY_LIMIT = 16 * 1024 * 1024;

function bodyTooLarge(): Error {
  return Object.assign(new Error('Request body is too large'), { statusCode: 413 });
}

/** The API at /trpc, with the same context as the REST shims. */
export async function trpc(app: FastifyInstance, { deps, onError }: { deps: ApiDeps; onError?: (path: string | undefined, code: string) => void }) {
  const publicLimit = app.initialConfig.bodyLimit ?? INTERNAL_BODY_LIMIT;
  app.addHook('onRoute', (route) => {
    route.bodyLimit = INTERNAL_BODY_LIMIT;
  });
  app.addHook('preParsing', async (req, _reply, payload) => {
    if (isInternalCaller(req.headers.authorization, deps.config.internalApiKey)) return payload;
    if (Number(req.headers['content-length'] ?? 0) > publicLimit) throw bodyTooLarge();
    // A body without a declared length (chunked) is counted as it arrives.
    let seen = 0;
    return payload.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          seen += chunk.length;
          done(seen > publicLimit ? bodyTooLarge() : null, chunk);
        },
      }),
    );
  });
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
