import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { appRouter, createContext, type ApiDeps, type AppRouter } from '@proxyhub/api';
import { DomainError } from '@proxyhub/core';
import { csrfGuard } from './csrf';
import { registerGoogleRoutes } from './google-routes';
import { boundJsonNesting } from './json-nesting';
import { requestLike, responseLike } from './request-adapter';
import { registerRoutes } from './rest';

export interface BuildAppOptions {
  deps: ApiDeps;
  loggerInstance?: FastifyBaseLogger;
  trustProxy?: boolean;
  /** Built web app to serve with history fallback; omitted when it does not exist. */
  webDistDir?: string | undefined;
}

const API_PREFIXES = ['/auth', '/admin/', '/api/', '/trpc', '/webhooks', '/health', '/sandbox'];

/** Largest tRPC batch accepted; the web client's batch link must not send more (httpBatchLink maxItems). */
export const MAX_TRPC_BATCH = 50;

export interface RouteInfo {
  method: string;
  url: string;
}
const routeLists = new WeakMap<FastifyInstance, RouteInfo[]>();
const inFlightHandlers = new WeakMap<FastifyInstance, Set<Promise<unknown>>>();

/** Every route registered on an app built by buildApp (tests enumerate them, e.g. to fuzz). */
export function listRoutes(app: FastifyInstance): RouteInfo[] {
  return [...(routeLists.get(app) ?? [])];
}

/**
 * Waits for every route handler still running. app.close() only waits for open sockets: a client
 * that hung up leaves its handler running, and closing the database under it would fail it.
 */
export async function drainHandlers(app: FastifyInstance): Promise<void> {
  const running = inFlightHandlers.get(app);
  while (running?.size) await Promise.allSettled([...running]);
}

type AsyncHandler = (this: unknown, ...args: unknown[]) => Promise<unknown>;

export function defaultWebDistDir(): string {
  return fileURLToPath(new URL('../../web/dist', import.meta.url));
}

export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const { deps } = opts;
  const app = Fastify({
    ...(opts.loggerInstance ? { loggerInstance: opts.loggerInstance } : { logger: false }),
    trustProxy: opts.trustProxy ?? false,
    bodyLimit: 64 * 1024,
    routerOptions: { maxParamLength: 5000 },
  });

  const routes: RouteInfo[] = [];
  const running = new Set<Promise<unknown>>();
  routeLists.set(app, routes);
  inFlightHandlers.set(app, running);
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) routes.push({ method, url: r.url });
    // Async handlers (ours, tRPC's) are tracked so shutdown can wait for them; callback-style
    // ones (static files) touch no database.
    const handler = r.handler as unknown as AsyncHandler;
    if (handler.constructor.name !== 'AsyncFunction') return;
    const tracked: AsyncHandler = function (this: unknown, ...args: unknown[]) {
      const p = handler.apply(this, args);
      running.add(p);
      const done = () => running.delete(p);
      p.then(done, done);
      return p;
    };
    r.handler = tracked as unknown as typeof r.handler;
  });

  await app.register(cookie);
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: deps.config.production ? [] : null,
      },
    },
    hsts: deps.config.production,
  });
  app.addHook('onRequest', csrfGuard({ publicUrl: deps.config.publicUrl, cookieNames: [deps.sessions.user.cookieName, deps.sessions.admin.cookieName] }));
  boundJsonNesting(app);

  // Every client error reads the same: { success: false, error }. A 5xx is logged and kept vague.
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 ? err.statusCode : 500;
    if (status >= 500) {
      req.log.error({ err }, 'request failed');
      return reply.code(500).send({ success: false, error: 'Internal server error' });
    }
    const message =
      err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError
        ? 'Malformed JSON body'
        : err.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? 'Request body is too large'
          : err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? 'Unsupported content type: send application/json'
            : err.message;
    return reply.code(status).send({ success: false, error: message });
  });

  app.get('/health', async () => {
    return { status: 'ok' };
  });

  await app.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    trpcOptions: {
      router: appRouter,
      createContext: ({ req, res }) => createContext(deps, requestLike(req), responseLike(res)),
      onError({ error, path, req }) {
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

  registerRoutes(app, deps);
  registerGoogleRoutes(app, deps);

  const webDir = opts.webDistDir;
  const index = webDir ? join(webDir, 'index.html') : null;
  if (webDir && index && existsSync(index)) {
    await app.register(fastifyStatic, { root: webDir, wildcard: false, index: false });
  }
  app.setNotFoundHandler((req, reply) => {
    const isApi = API_PREFIXES.some((p) => req.url.startsWith(p)) && !(req.url === '/admin' || req.url.startsWith('/admin?'));
    if (req.method === 'GET' && !isApi && index && existsSync(index) && (req.headers.accept ?? '').includes('text/html')) {
      return reply.type('text/html').sendFile('index.html');
    }
    return reply.code(404).send({ success: false, error: `Not found: ${req.method} ${req.url.split('?')[0]}` });
  });
  return app;
}
