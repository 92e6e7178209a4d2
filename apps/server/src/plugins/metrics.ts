/**
 * Prometheus metrics at /metrics and readiness at /ready. Metrics carry business figures (ledger
 * totals, traffic), so they answer a loopback caller or the internal key only (metricsAccess). Labels
 * are bounded: the route pattern, never the raw URL (unknown paths are one label); tRPC paths only
 * when the router has them. The hot path only increments counters; everything that needs the
 * database (pool, ledger) is read when Prometheus scrapes.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { appRouter, checkLedger, upstreamAccountStates, type ApiDeps } from '@proxyhub/api';
import { UPSTREAM_ACCOUNT_STATUSES } from '@proxyhub/core';
import { metricsAccess } from '@proxyhub/core/node';
import type { Database, PoolStats } from '@proxyhub/db';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const KNOWN_PROCEDURES = new Set(Object.keys((appRouter._def as { procedures: Record<string, unknown> }).procedures));
/** A database that does not answer within this is "unreachable" for readiness. */
const READY_TIMEOUT_MS = 3000;

export interface ServerMetrics {
  registry: Registry;
  /** Called by the tRPC adapter's onError. */
  trpcError(path: string | undefined, code: string): void;
}

/** The registry and the metrics the edge updates; the plugin below serves them. */
export function createServerMetrics(opts: { deps: ApiDeps; database?: Database | undefined; processMetrics?: boolean }): ServerMetrics {
  const { deps, database } = opts;
  const registry = new Registry();
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  const trpcErrors = new Counter({
    name: 'trpc_errors_total',
    help: 'tRPC procedure calls that failed, by procedure and tRPC error code',
    labelNames: ['procedure', 'code'],
    registers: [registry],
  });
  // Both pool gauges come from one read per scrape.
  let poolRead: { at: number; stats: Promise<PoolStats | null> } | null = null;
  const pool = () => {
    if (!database) return Promise.resolve(null);
    if (!poolRead || Date.now() - poolRead.at > 1000) {
      const stats = database.poolStats().catch((err: unknown) => {
        deps.logger.warn({ err }, 'metrics: database pool stats failed');
        return null;
      });
      poolRead = { at: Date.now(), stats };
    }
    return poolRead.stats;
  };
  new Gauge({
    name: 'proxyhub_db_pool_max_connections',
    help: 'Most connections the database pool opens (1: the embedded PGlite)',
    registers: [registry],
    async collect() {
      const stats = await pool();
      if (stats) this.set(stats.max);
    },
  });
  new Gauge({
    name: 'proxyhub_db_pool_connections',
    help: "This process's open database connections by server-side state",
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      const stats = await pool();
      for (const [state, n] of Object.entries(stats?.connections ?? {})) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'proxyhub_ledger_bytes',
    help: 'Ledger totals over all wallets: entries = credits + leased + usage; imbalance = entries - credits - leased - usage (0 when the invariant holds)',
    labelNames: ['part'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const l = await checkLedger(deps.db);
        this.set({ part: 'entries' }, Number(l.entries));
        this.set({ part: 'credits' }, Number(l.credits));
        this.set({ part: 'leased' }, Number(l.leased));
        this.set({ part: 'usage' }, Number(l.usage));
        this.set({ part: 'imbalance' }, Number(l.entries - l.credits - l.leased - l.usage));
      } catch (err) {
        deps.logger.warn({ err }, 'metrics: ledger totals failed');
      }
    },
  });
  // Provider accounts (the balance watch's last reading): both gauges from one read per scrape.
  let accountsRead: { at: number; rows: ReturnType<typeof upstreamAccountStates> } | null = null;
  const accounts = () => {
    if (!accountsRead || Date.now() - accountsRead.at > 250) {
      const rows = upstreamAccountStates(deps.db).catch((err: unknown) => {
        deps.logger.warn({ err }, 'metrics: upstream accounts failed');
        return [];
      });
      accountsRead = { at: Date.now(), rows };
    }
    return accountsRead.rows;
  };
  new Gauge({
    name: 'proxyhub_upstream_balance_bytes',
    help: 'Traffic left in each upstream provider account at its last good check, by upstream id',
    labelNames: ['upstream'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const a of await accounts()) if (a.balanceBytes !== null) this.set({ upstream: a.upstreamId }, Number(a.balanceBytes));
    },
  });
  new Gauge({
    name: 'proxyhub_upstream_status',
    help: 'Each upstream provider account status: 1 for the current one (ok, low, dry, error, unchecked), 0 for the others',
    labelNames: ['upstream', 'status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const a of await accounts())
        for (const status of UPSTREAM_ACCOUNT_STATUSES) this.set({ upstream: a.upstreamId, status }, a.status === status ? 1 : 0);
    },
  });
  return {
    registry,
    trpcError(path, code) {
      trpcErrors.inc({ procedure: path && KNOWN_PROCEDURES.has(path) ? path : 'unknown', code });
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Null when ready, else why not (fixed words: no driver message reaches an unauthenticated caller). */
async function notReadyReason(database: Database): Promise<string | null> {
  try {
    await withTimeout(database.ping(), READY_TIMEOUT_MS);
  } catch {
    return 'database unreachable';
  }
  try {
    const m = await withTimeout(database.migrationState(), READY_TIMEOUT_MS);
    return m.latest ? null : `migrations pending: ${m.applied} of ${m.expected} applied`;
  } catch {
    return 'migration state unreadable';
  }
}

export interface MetricsPluginOptions {
  metrics: ServerMetrics;
  deps: ApiDeps;
  database?: Database | undefined;
}

export const metricsPlugin = fp(
  async (app: FastifyInstance, { metrics, deps, database }: MetricsPluginOptions) => {
    const { registry } = metrics;
    const requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
    });
    const duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request to response, by route pattern and method',
      labelNames: ['route', 'method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const method = KNOWN_METHODS.has(request.method) ? request.method : 'OTHER';
      requests.inc({ route, method, status: String(reply.statusCode) });
      duration.observe({ route, method }, reply.elapsedTime / 1000);
      done();
    });

    app.get('/metrics', async (request, reply) => {
      const access = metricsAccess(
        { peer: request.socket.remoteAddress, client: request.ip, authorization: request.headers.authorization },
        deps.config.internalApiKey,
      );
      if (access === 'unauthenticated') {
        return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'Metrics need the internal key outside this machine' });
      }
      if (access === 'forbidden') return reply.code(403).send({ error: 'Invalid internal key' });
      const body = await registry.metrics();
      return reply.type(registry.contentType).send(body);
    });

    // Liveness is /health; readiness also needs the database and its migrations (load balancers
    // take a process out of rotation on 503).
    app.get('/ready', async (_request, reply) => {
      const reason = database ? await notReadyReason(database) : null;
      if (reason) return reply.code(503).send({ status: 'not ready', reason });
      return { status: 'ready' };
    });
  },
  { name: 'metrics' },
);
