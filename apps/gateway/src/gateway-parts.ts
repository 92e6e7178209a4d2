/**
 * The gateway's parts, assembled from its options: the server connection (instrumented), the
 * meter, the login cache, the upstream pools with the egress, the fleet heartbeat, and the hooks
 * of forwarded HTTP; and the listening socket. gateway.ts accepts and dispatches with them.
 */
import type { Server, Socket } from 'node:net';
import { Authenticator, type Session } from './authenticator';
import { createBackend, type Backend } from './backend';
import { createEgress, upstreamFromUrl } from './egress';
import { FleetHeartbeat } from './fleet-heartbeat';
import type { GatewayOptions, GatewayStats } from './gateway-options';
import type { Logger } from './log';
import { proxyUserIdOf, type Refusal } from './protocols/handshake';
import { credentialsOf } from './protocols/http';
import { DEFAULT_METER_OPTIONS, type Meter } from './meter';
import { createMeter } from './report/outbox';
import { GatewayMetrics } from './metrics';
import { policyRefusal, targetOpener, type OpenTarget } from './open-target';
import { TargetPolicyGate } from './target-policy';
import { UpstreamPool } from './upstream-pool';

export interface GatewayParts {
  metrics: GatewayMetrics;
  backend: Backend;
  meter: Meter;
  logins: Authenticator;
  upstreams: UpstreamPool;
  openTarget: OpenTarget;
  targetPolicy: TargetPolicyGate;
  heartbeat: FleetHeartbeat;
}

export function gatewayParts(opts: GatewayOptions, logger: Logger, gateway: { stats(): GatewayStats }): GatewayParts {
  const metrics = new GatewayMetrics(() => gateway.stats());
  let raw: Backend;
  if (opts.backend) raw = opts.backend;
  else if (opts.serverUrl && opts.internalApiKey) raw = createBackend(opts.serverUrl, opts.internalApiKey);
  else throw new Error('gateway: serverUrl and internalApiKey (or a backend) are required');
  const backend = metrics.instrument(raw);
  const meter = createMeter({ ...DEFAULT_METER_OPTIONS, ...opts.meter, gatewayId: opts.gatewayId, backend, logger, metrics });
  const upstreams = new UpstreamPool(opts.upstreams);
  const fallback = opts.upstreamUrl ? upstreamFromUrl(opts.upstreamUrl) : null;
  const logins = new Authenticator(backend, meter, logger, {
    auth: opts.auth,
    loginLimits: opts.loginLimits,
    lineTestKey: opts.internalApiKey ?? opts.sessionSecret,
    notCarried: (parts) => upstreams.notCarried(parts.location, parts.hard === true, fallback),
  });
  const targetPolicy = new TargetPolicyGate();
  const openTarget = targetOpener(
    createEgress({
      allowPrivate: opts.allowPrivate ?? false,
      upstreamUrl: opts.upstreamUrl,
      pool: upstreams,
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      logger,
    }),
    opts.sessionSecret ?? opts.internalApiKey ?? '',
    targetPolicy,
    logins.rotations,
  );
  const heartbeat = new FleetHeartbeat(
    backend,
    opts.gatewayId,
    () => ({
      openTunnels: gateway.stats().tunnels,
      bytesUp: meter.bytesUp,
      bytesDown: meter.bytesDown,
      leasedBytes: meter.heldBytes(),
      upstreamErrors: upstreams.errors,
    }),
    logger,
    opts.fleetHeartbeatMs ?? 10_000,
  );
  return { metrics, backend, meter, logins, upstreams, openTarget, targetPolicy, heartbeat };
}

/** What a forwarded HTTP connection (http-forward.ts) calls back into the gateway for. */
export interface ForwardHooks {
  logger: Logger;
  /** A request's Proxy-Authorization logged in; a refusal names the proxy user id it asked for, if any. */
  login(authorization: string | undefined, client: Socket): Promise<Session | (Refusal & { proxyUserId: string | null })>;
  openTarget: OpenTarget;
  /** The target policy's refusal of a request naming these hosts (its URI host and Host header), or null. */
  blocked(session: Session, hosts: readonly string[]): Refusal | null;
  /** Answers a refused request (answers.ts), logs it and ends the connection. */
  refuse(client: Socket, r: Refusal, proxyUserId: string | null): void;
  /** The origin could not be reached (counted like a tunnel's refusal). */
  targetRefused(r: Refusal): void;
  /** A CONNECT after forwarded requests: the gateway serves the connection from these bytes on, as a new one. */
  handOver(client: Socket, bytes: Buffer): void;
}

/** A keep-alive HTTP client's later requests: logged in, refused and counted like first ones. */
export function forwardHooks(
  p: GatewayParts,
  logger: Logger,
  refuse: ForwardHooks['refuse'],
  handOver: ForwardHooks['handOver'],
  entryPortOf: (client: Socket) => number | undefined,
): ForwardHooks {
  return {
    logger,
    login: async (authorization, client) => {
      const credentials = credentialsOf(authorization);
      if (credentials && 'ok' in credentials) return { ...credentials, proxyUserId: null };
      const r = await p.logins.login(credentials, client.remoteAddress, entryPortOf(client));
      p.metrics.handshake('http', r);
      return r.ok ? r : { ...r, proxyUserId: credentials ? proxyUserIdOf(credentials.username) : null };
    },
    openTarget: p.openTarget,
    blocked: (session, hosts) => policyRefusal(p.targetPolicy, session, hosts),
    refuse,
    targetRefused: (r) => p.metrics.tunnelRefused('http', r.kind),
    handOver,
  };
}

/**
 * The upstream pools and the target policy, before the first connection; a server that does not
 * answer yet leaves the default egress and no policy until the next poll.
 */
export async function readServerLists(p: Pick<GatewayParts, 'upstreams' | 'targetPolicy'>, backend: Backend, logger: Logger): Promise<void> {
  await p.upstreams.refresh(backend).catch((err: unknown) => logger.warn({ err }, 'could not read the upstream list yet'));
  await p.targetPolicy.refresh(backend).catch((err: unknown) => logger.warn({ err }, 'could not read the target policy yet'));
}

/** Connections the kernel may queue before the gateway accepts them. */
export const LISTEN_BACKLOG = 4096;

export function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A burst of new connections (a thousand customers' scrapers starting together) must wait in
    // the kernel's queue, not be dropped: a dropped SYN is retried only after a second. Node's
    // default queue is 511; the kernel caps this at net.core.somaxconn.
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Stops accepting, gives open connections `drainMs` to finish, then closes the rest. */
export async function closeServer(server: Server, sockets: ReadonlySet<Socket>, drainMs: number): Promise<void> {
  const closed = new Promise<void>((r) => server.close(() => r()));
  if (drainMs > 0 && sockets.size) {
    const deadline = Date.now() + drainMs;
    while (sockets.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }
  for (const s of sockets) s.destroy();
  await closed;
}
