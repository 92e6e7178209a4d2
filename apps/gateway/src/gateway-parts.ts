/**
 * The gateway's parts, assembled from its options: the server connection (instrumented), the
 * meter, the login cache, the upstream pools with the egress, the fleet heartbeat, and the hooks
 * of forwarded HTTP; and the listening socket. gateway.ts accepts and dispatches with them.
 */
import type { Server, Socket } from 'node:net';
import { Authenticator } from './authenticator';
import { createBackend, type Backend } from './backend';
import { createEgress } from './egress';
import { FleetHeartbeat } from './fleet-heartbeat';
import type { GatewayOptions, GatewayStats } from './gateway-options';
import type { ForwardHooks } from './http-forward';
import type { Logger } from './log';
import { DEFAULT_METER_OPTIONS, Meter } from './meter';
import { GatewayMetrics } from './metrics';
import { targetOpener, type OpenTarget } from './open-target';
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
  const meter = new Meter({ ...DEFAULT_METER_OPTIONS, ...opts.meter, gatewayId: opts.gatewayId, backend, logger, metrics });
  const logins = new Authenticator(backend, meter, logger, {
    auth: opts.auth,
    loginLimits: opts.loginLimits,
    lineTestKey: opts.internalApiKey ?? opts.sessionSecret,
  });
  const upstreams = new UpstreamPool(opts.upstreams);
  const targetPolicy = new TargetPolicyGate();
  const openTarget = targetOpener(
    createEgress({
      allowPrivate: opts.allowPrivate ?? false,
      upstreamUrl: opts.upstreamUrl,
      pool: upstreams,
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
    }),
    opts.sessionSecret ?? opts.internalApiKey ?? '',
    targetPolicy,
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

/** A keep-alive HTTP client's later requests: logged in, refused and counted like first ones. */
export function forwardHooks(p: GatewayParts, logger: Logger, refuse: ForwardHooks['refuse'], handOver: ForwardHooks['handOver']): ForwardHooks {
  return {
    logger,
    login: async (credentials, remote) => {
      const r = await p.logins.login(credentials, remote);
      p.metrics.handshake('http', r);
      return r;
    },
    openTarget: p.openTarget,
    refuse,
    targetRefused: (r) => p.metrics.tunnelRefused('http', r.kind),
    handOver,
  };
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
