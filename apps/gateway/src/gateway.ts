/**
 * The proxy gateway: one TCP port, the first byte decides the protocol (0x05 SOCKS5, anything else
 * HTTP). Protects the traffic we sell: nothing is relayed without valid credentials and a byte
 * lease, and nothing a client sends (garbage, half a handshake, a slow drip) can crash the process
 * or keep a socket open past the handshake deadline. The protocols live in protocols/, the login
 * in authenticator.ts, the lease and the target in open-target.ts, the data path in relay.ts.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { AuthCacheOptions } from './auth-cache';
import { Authenticator, type Session } from './authenticator';
import { createBackend, type Backend } from './backend';
import { releaseEarlierLeases } from './earlier-leases';
import { createEgress, type TargetSocket } from './egress';
import { FleetHeartbeat } from './fleet-heartbeat';
import { proxyUserIdOf, type ForwardHooks } from './http-forward';
import { silentLogger, type Logger } from './log';
import type { LoginLimitOptions } from './login-limit';
import { DEFAULT_METER_OPTIONS, Meter, type MeterOptions } from './meter';
import { GatewayMetrics } from './metrics';
import { targetOpener, type OpenTarget } from './open-target';
import { answerTo, refusalLogLevel, type ProtocolName } from './protocols/answers';
import { HandshakeReader, type Accepted, type Handshake, type Refusal } from './protocols/handshake';
import { httpHandshake } from './protocols/http';
import { socks5Handshake } from './protocols/socks5';
import { Tunnels } from './tunnels';
import { UpstreamPool, type UpstreamPoolOptions } from './upstream-pool';

export { BALANCE_EMPTY_MESSAGE } from './open-target';

export interface GatewayOptions {
  gatewayId: string;
  /** The server's base URL and internal key; or a ready backend (tests). */
  serverUrl?: string;
  internalApiKey?: string;
  backend?: Backend;
  /** Derives sticky sessions the same on every gateway (default: internalApiKey; the fleet shares it). */
  sessionSecret?: string;
  allowPrivate?: boolean;
  /** The default upstream: used when no pool (admin panel) serves a tunnel. */
  upstreamUrl?: string | undefined;
  /** The web app's origin, named in refusals ("top up at .../topup"); default http://localhost:3000. */
  publicUrl?: string;
  /** Health and polling of the admin's upstream pools. */
  upstreams?: Partial<UpstreamPoolOptions>;
  /** How often the gateway reports itself to the fleet (GET /admin/gateways). */
  fleetHeartbeatMs?: number;
  logger?: Logger;
  handshakeTimeoutMs?: number;
  idleTimeoutMs?: number;
  connectTimeoutMs?: number;
  auth?: Partial<AuthCacheOptions>;
  loginLimits?: Partial<LoginLimitOptions>;
  meter?: Partial<Omit<MeterOptions, 'gatewayId' | 'backend' | 'logger' | 'metrics'>>;
  /** Settle leases left open by an earlier process with this gateway id (a crash) on listen. */
  releaseStaleLeases?: boolean;
}

export interface GatewayStats {
  connections: number;
  tunnels: number;
  accounts: number;
  heldBytes: number;
}

const HANDSHAKES: Record<ProtocolName, Handshake> = { http: httpHandshake, socks5: socks5Handshake };
const ignore = () => undefined;
/** Connections the kernel may queue before the gateway accepts them (see listen()). */
export const LISTEN_BACKLOG = 4096;

/** A handshake done and its target connected: what the relay starts from. */
interface Opened {
  accepted: Accepted<Session>;
  target: TargetSocket;
  protocol: ProtocolName;
}

export class Gateway {
  readonly server: Server;
  readonly meter: Meter;
  readonly logins: Authenticator;
  readonly upstreams: UpstreamPool;
  readonly heartbeat: FleetHeartbeat;
  readonly metrics: GatewayMetrics;
  private readonly backend: Backend;
  private readonly openTarget: OpenTarget;
  private readonly logger: Logger;
  private readonly sockets = new Set<Socket>();
  private readonly tunnels: Tunnels;
  private closing: Promise<void> | null = null;
  private readonly handshakeTimeoutMs: number;
  private readonly publicUrl: string;
  private readonly forwardHooks: ForwardHooks;

  constructor(private readonly opts: GatewayOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.metrics = new GatewayMetrics(() => this.stats());
    let backend: Backend;
    if (opts.backend) backend = opts.backend;
    else if (opts.serverUrl && opts.internalApiKey) backend = createBackend(opts.serverUrl, opts.internalApiKey);
    else throw new Error('gateway: serverUrl and internalApiKey (or a backend) are required');
    this.backend = this.metrics.instrument(backend);
    this.handshakeTimeoutMs = opts.handshakeTimeoutMs ?? 15_000;
    this.publicUrl = (opts.publicUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
    this.meter = new Meter({
      ...DEFAULT_METER_OPTIONS,
      ...opts.meter,
      gatewayId: opts.gatewayId,
      backend: this.backend,
      logger: this.logger,
      metrics: this.metrics,
    });
    this.logins = new Authenticator(this.backend, this.meter, this.logger, { auth: opts.auth, loginLimits: opts.loginLimits });
    this.upstreams = new UpstreamPool(opts.upstreams);
    this.openTarget = targetOpener(
      createEgress({
        allowPrivate: opts.allowPrivate ?? false,
        upstreamUrl: opts.upstreamUrl,
        pool: this.upstreams,
        connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      }),
      opts.sessionSecret ?? opts.internalApiKey ?? '',
    );
    this.server = createServer({ allowHalfOpen: true, noDelay: true, pauseOnConnect: false }, (s) => this.onConnection(s));
    this.server.on('error', (err) => this.logger.error({ err }, 'gateway server error'));
    this.tunnels = new Tunnels(opts.idleTimeoutMs ?? 5 * 60_000, this.handshakeTimeoutMs);
    // A keep-alive HTTP client's later requests: logged in, refused and counted like first ones.
    this.forwardHooks = {
      logger: this.logger,
      login: async (credentials, remote) => {
        const r = await this.logins.login(credentials, remote);
        this.metrics.handshake('http', r);
        return r;
      },
      openTarget: this.openTarget,
      refuse: (client, r, proxyUserId) => void this.refuse(client, 'http', r, proxyUserId),
      targetRefused: (r) => this.metrics.tunnelRefused('http', r.kind),
      handOver: (client, bytes) => this.serve(client, bytes),
    };
    this.heartbeat = new FleetHeartbeat(
      this.backend,
      opts.gatewayId,
      () => ({
        openTunnels: this.tunnels.size,
        bytesUp: this.meter.bytesUp,
        bytesDown: this.meter.bytesDown,
        leasedBytes: this.meter.heldBytes(),
        upstreamErrors: this.upstreams.errors,
      }),
      this.logger,
      opts.fleetHeartbeatMs ?? 10_000,
    );
  }

  async listen(port: number, host = '0.0.0.0'): Promise<AddressInfo> {
    if (this.opts.releaseStaleLeases) await releaseEarlierLeases(this.backend, this.opts.gatewayId, this.logger);
    // The pools before the first tunnel; a server that does not answer yet leaves the default
    // egress until the next poll.
    await this.upstreams.refresh(this.backend).catch((err: unknown) => this.logger.warn({ err }, 'could not read the upstream list yet'));
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      // A burst of new connections (a thousand customers' scrapers starting together) must wait in
      // the kernel's queue, not be dropped: a dropped SYN is retried only after a second. Node's
      // default queue is 511; the kernel caps this at net.core.somaxconn.
      this.server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.meter.start();
    this.upstreams.start(this.backend, this.logger);
    this.heartbeat.start();
    return this.server.address() as AddressInfo;
  }

  /** Sends a usage report now and waits for the server to apply it. */
  flush(): Promise<void> {
    return this.meter.flush();
  }

  stats(): GatewayStats {
    return { connections: this.sockets.size, tunnels: this.tunnels.size, accounts: this.meter.accounts.size, heldBytes: this.meter.heldBytes() };
  }

  /**
   * Graceful shutdown: stop accepting, give open connections `drainMs` to finish, close the rest,
   * then report the last usage and return every unused leased byte.
   */
  close(drainMs = 0): Promise<void> {
    this.closing ??= (async () => {
      this.logins.stop();
      this.tunnels.stop();
      this.upstreams.stop();
      this.heartbeat.stop();
      const closed = new Promise<void>((r) => this.server.close(() => r()));
      if (drainMs > 0 && this.sockets.size) {
        const deadline = Date.now() + drainMs;
        while (this.sockets.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      }
      for (const s of this.sockets) s.destroy();
      await closed;
      await this.meter.close();
    })();
    return this.closing;
  }

  private onConnection(socket: Socket): void {
    if (this.closing) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    // An absolute deadline, not an idle timer: a client dripping a byte at a time is cut off too.
    let deadline: NodeJS.Timeout | null = setTimeout(() => {
      this.logger.debug({ remote: socket.remoteAddress }, 'handshake timeout');
      socket.destroy();
    }, this.handshakeTimeoutMs);
    socket.on('close', () => {
      if (deadline) clearTimeout(deadline);
      this.sockets.delete(socket);
    });
    socket.on('error', ignore);
    // EOF before the handshake completed: nothing can follow. (While a login or a connect is under
    // way the socket is paused, so a client's half-close reaches the relay instead.)
    const endedEarly = () => {
      if (!socket.writableEnded) socket.destroy();
    };
    socket.once('end', endedEarly);
    socket.once('data', (first: Buffer) => {
      socket.pause();
      this.serve(socket, first, () => {
        // Relaying: an idle tunnel keeps neither the timer nor the handshake's listener.
        if (deadline) clearTimeout(deadline);
        deadline = null;
        socket.off('end', endedEarly);
      });
    });
  }

  /** A handshake from `bytes` on, then the tunnel or the forwarded requests; `started` once relaying. */
  private serve(socket: Socket, bytes: Buffer, started?: () => void): void {
    this.dispatch(socket, bytes).then(
      (opened) => {
        if (!opened) return;
        started?.();
        const { accepted, target, protocol } = opened;
        if (accepted.forward) {
          const first = { session: accepted.session, target: accepted.target, socket: target, request: accepted.forward, leftover: accepted.leftover };
          this.tunnels.forward(socket, first, this.forwardHooks);
        } else {
          this.tunnels.start(socket, target, accepted, protocol);
        }
      },
      (err: unknown) => {
        this.logger.error({ err }, 'proxy handshake failed');
        socket.destroy();
      },
    );
  }

  /** The protocol's handshake, then the lease and the target; null when refused or gone. */
  private async dispatch(socket: Socket, first: Buffer): Promise<Opened | null> {
    const protocol: ProtocolName = first[0] === 5 ? 'socks5' : 'http';
    this.metrics.connection(protocol);
    // Who asked, for the log of a refusal: the proxy user id the username names (never the password).
    let proxyUserId: string | null = null;
    const accepted = await HANDSHAKES[protocol](new HandshakeReader(socket, first), (credentials) => {
      proxyUserId = credentials ? proxyUserIdOf(credentials.username) : null;
      return this.logins.login(credentials, socket.remoteAddress);
    });
    this.metrics.handshake(protocol, accepted);
    if (!accepted) return null;
    if (!accepted.ok) return this.refuse(socket, protocol, accepted, proxyUserId);
    const opened = await this.openTarget(accepted.session, accepted.target, socket);
    if (!opened) return null;
    if (!opened.ok) {
      this.metrics.tunnelRefused(protocol, opened.kind);
      return this.refuse(socket, protocol, opened, accepted.session.parts.proxyUserId);
    }
    if (accepted.established) socket.write(accepted.established);
    return { accepted, target: opened.socket, protocol };
  }

  private refuse(socket: Socket, protocol: ProtocolName, r: Refusal, proxyUserId: string | null = null): null {
    this.logger[refusalLogLevel(r)]({ protocol, kind: r.kind, reason: r.message, proxyUserId, remote: socket.remoteAddress }, 'proxy request refused');
    const answer = answerTo(protocol, r, { publicUrl: this.publicUrl });
    if (!answer || socket.destroyed) {
      socket.destroy();
      return null;
    }
    socket.end(answer);
    // Drain (and drop) whatever the client still sends; the handshake deadline ends stragglers.
    socket.on('data', ignore);
    socket.resume();
    return null;
  }
}

export function createGateway(opts: GatewayOptions): Gateway {
  return new Gateway(opts);
}
