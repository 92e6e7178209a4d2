import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { servedOverHttps, type ApiDeps } from '@proxyhub/api';
import type { Database } from '@proxyhub/db';
import { googleSignIn } from './google-routes';
import { apiDocs } from './plugins/api-docs';
import { jsonEdge } from './plugins/json-edge';
import { createServerMetrics, metricsPlugin } from './plugins/metrics';
import { quietInternalLogs } from './plugins/quiet-internal';
import { requestLine } from './plugins/request-line';
import { routeRegistry } from './plugins/route-registry';
import { security } from './plugins/security';
import { trpc } from './plugins/trpc';
import { webApp } from './plugins/web';
import { rest, restRoutes } from './rest';
import { fastifyTrustProxy, type TrustProxy } from './trust-proxy';
import { paymentWebhooks } from './webhooks/payments';
import { sandboxPage } from './webhooks/sandbox';
import type { TelegramBot } from './telegram/bot';
import { telegramWebhook } from './telegram/webhook';

export { drainHandlers, listRoutes, type RouteInfo } from './plugins/route-registry';
export { MAX_TRPC_BATCH } from './plugins/trpc';

export interface BuildAppOptions {
  deps: ApiDeps;
  loggerInstance?: FastifyBaseLogger;
  /** Proxies in front (a hop count or their addresses); `true` means one hop. */
  trustProxy?: TrustProxy | boolean | undefined;
  /** Built web app to serve with history fallback; omitted when it does not exist. */
  webDistDir?: string | undefined;
  /** For /ready (ping, migrations) and the pool metrics; without it /ready only says the process is up. */
  database?: Database | undefined;
  /** Node process metrics (CPU, memory, event loop) in /metrics: the real process, not tests. */
  processMetrics?: boolean;
  /** The Telegram bot: POST /telegram/webhook exists only with it. */
  telegram?: TelegramBot | null;
}

export function defaultWebDistDir(): string {
  return fileURLToPath(new URL('../../web/dist', import.meta.url));
}

/** The public pages' Markdown shipped with the product (`content/legal` at the repository root; src/ and dist/ sit at the same depth). */
export function defaultContentDir(): string {
  return fileURLToPath(new URL('../../../content/legal', import.meta.url));
}

/**
 * The HTTP edge, one plugin per concern. Those that apply to every route (registry, security,
 * JSON, web fallback) break encapsulation; the rest keep theirs (the sandbox page's form parser).
 */
/**
 * A request's head and body must arrive within this, as the gateway's handshakes must: a client
 * trickling a request would otherwise hold a socket for Node's defaults (60 s for the head, 300 s
 * for the whole, checked only every 30 s).
 */
export const REQUEST_ARRIVAL_MS = 15_000;

export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const { deps } = opts;
  const app = Fastify({
    logController: quietInternalLogs(deps),
    ...(opts.loggerInstance ? { loggerInstance: opts.loggerInstance } : { logger: false }),
    trustProxy: fastifyTrustProxy(opts.trustProxy),
    bodyLimit: 64 * 1024,
    routerOptions: { maxParamLength: 5000 },
    requestTimeout: REQUEST_ARRIVAL_MS,
    // Node checks both deadlines on a timer: once a second keeps the close within a second of them.
    http: { headersTimeout: REQUEST_ARRIVAL_MS, requestTimeout: REQUEST_ARRIVAL_MS, connectionsCheckingInterval: 1000 },
  });

  await app.register(routeRegistry);
  await app.register(requestLine);
  const metrics = createServerMetrics({ deps, database: opts.database, processMetrics: opts.processMetrics ?? false });
  await app.register(metricsPlugin, { metrics, deps, database: opts.database });
  await app.register(security, {
    production: deps.config.production,
    https: servedOverHttps(deps.config),
    publicUrl: deps.config.publicUrl,
    sessionCookieNames: [deps.sessions.user.cookieName, deps.sessions.admin.cookieName],
  });
  await app.register(jsonEdge);

  app.get('/health', async () => ({ status: 'ok' }));
  await app.register(trpc, { deps, onError: (path, code) => metrics.trpcError(path, code) });
  await app.register(rest, { deps });
  await app.register(apiDocs, { deps, routes: restRoutes });
  await app.register(paymentWebhooks, { deps });
  await app.register(sandboxPage, { deps, webDistDir: opts.webDistDir });
  await app.register(googleSignIn, { deps });
  if (opts.telegram) await app.register(telegramWebhook, { telegram: opts.telegram });
  await app.register(webApp, { webDistDir: opts.webDistDir });
  return app;
}
