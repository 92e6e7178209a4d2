/**
 * The proxy gateway: one TCP port (and the entry ports, served alike; a password-less connection
 * there takes the port's profile), the first byte decides the protocol (0x05 SOCKS5, anything else
 * HTTP). Protects the traffic we sell: nothing is relayed without valid credentials and a byte
 * lease, and nothing a client sends (garbage, half a handshake, a slow drip) can crash the process
 * or keep a socket open past the handshake deadline. This module accepts, dispatches and starts;
 * the parts are in gateway-parts.ts, protocols/, authenticator.ts, open-target.ts, tunnel-sni.ts,
 * relay.ts and http-forward.ts, metered by metered-flow.ts.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Authenticator } from './authenticator';
import type { Backend } from './backend';
import { releaseEarlierLeases } from './earlier-leases';
import type { FleetHeartbeat } from './fleet-heartbeat';
import type { GatewayOptions, GatewayStats } from './gateway-options';
import { connectionHeaderId, connectMsSince, nextConnectionSeq, OUTCOME_OF_REFUSAL, recordUnrelayed } from './connection-log/record';
import { closeServer, forwardHooks, gatewayParts, listenOn, readServerLists, type ForwardHooks } from './gateway-parts';
import { silentLogger, type Logger } from './log';
import type { Meter } from './meter';
import type { GatewayMetrics } from './metrics';
import type { OpenTarget } from './open-target';
import { answerTo, endWith, refusalLogLevel, type ProtocolName } from './protocols/answers';
import { HandshakeReader, proxyUserIdOf, type Handshake, type Refusal } from './protocols/handshake';
import { connectEstablished, httpHandshake } from './protocols/http';
import { socks5Handshake } from './protocols/socks5';
import { Tunnels } from './tunnels';
import { startAfterSni, type Opened } from './tunnel-sni';
import { targetJudge, type TargetPolicyGate } from './target-policy';
import type { UpstreamPool } from './upstream-pool';

export type { GatewayOptions, GatewayStats } from './gateway-options';
export { BALANCE_EMPTY_MESSAGE } from './metered-flow';

const HANDSHAKES: Record<ProtocolName, Handshake> = { http: httpHandshake, socks5: socks5Handshake };
const ignore = () => undefined;

export class Gateway {
  readonly server: Server;
  /** One per entry port (options.entryPorts), by port; the same handling as the main port's. */
  readonly entryServers = new Map<number, Server>();
  readonly meter: Meter;
  readonly logins: Authenticator;
  readonly upstreams: UpstreamPool;
  readonly targetPolicy: TargetPolicyGate;
  readonly heartbeat: FleetHeartbeat;
  readonly metrics: GatewayMetrics;
  private readonly backend: Backend;
  private readonly openTarget: OpenTarget;
  private readonly logger: Logger;
  private readonly sockets = new Set<Socket>();
  /** Sockets still in their handshake, by when they connected (oldest first): one sweep, not a timer each. */
  private readonly handshaking = new Map<Socket, number>();
  private readonly handshakeSweeper: NodeJS.Timeout;
  private readonly tunnels: Tunnels;
  private closing: Promise<void> | null = null;
  private readonly handshakeTimeoutMs: number;
  private readonly publicUrl: string;
  private readonly forwardHooks: ForwardHooks;
  /** The entry port each client of an entry port came in on (set at accept: reading a socket's local port is a syscall). */
  private readonly entryPorts = new WeakMap<Socket, number>();

  constructor(private readonly opts: GatewayOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.handshakeTimeoutMs = opts.handshakeTimeoutMs ?? 15_000;
    this.publicUrl = (opts.publicUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
    this.tunnels = new Tunnels(opts.idleTimeoutMs ?? 5 * 60_000, this.handshakeTimeoutMs);
    const p = gatewayParts(opts, this.logger, this);
    [this.metrics, this.backend, this.meter, this.logins] = [p.metrics, p.backend, p.meter, p.logins];
    [this.upstreams, this.openTarget, this.heartbeat, this.targetPolicy] = [p.upstreams, p.openTarget, p.heartbeat, p.targetPolicy];
    // An absolute deadline, checked often enough that it is overrun by a quarter of itself at most.
    this.handshakeSweeper = setInterval(() => this.sweepHandshakes(), Math.min(1000, Math.max(10, this.handshakeTimeoutMs / 4)));
    this.handshakeSweeper.unref();
    this.server = this.createListener();
    const ports = opts.entryPorts;
    if (ports) for (let port = ports.from; port <= ports.to; port += 1) this.entryServers.set(port, this.createListener(port));
    this.forwardHooks = forwardHooks(
      p,
      this.logger,
      (client, r, proxyUserId) => void this.refuse(client, 'http', r, proxyUserId),
      (client, bytes) => this.serve(client, bytes),
      (client) => this.entryPortOf(client),
    );
  }

  /** The main port's listener, or entry port `entryPort`'s. */
  private createListener(entryPort?: number): Server {
    const server = createServer({ allowHalfOpen: true, noDelay: true, pauseOnConnect: false }, (s) => {
      if (entryPort !== undefined) this.entryPorts.set(s, entryPort);
      this.onConnection(s);
    });
    server.on('error', (err) => this.logger.error({ err }, 'gateway server error'));
    return server;
  }

  /** The entry port a client connected to; undefined for the main port. */
  private entryPortOf(socket: Socket): number | undefined {
    return this.entryPorts.get(socket);
  }

  async listen(port: number, host = '0.0.0.0'): Promise<AddressInfo> {
    if (this.opts.releaseStaleLeases) await releaseEarlierLeases(this.backend, this.opts.gatewayId, this.logger);
    await readServerLists(this, this.backend, this.logger);
    await listenOn(this.server, port, host);
    for (const [entryPort, server] of this.entryServers) await listenOn(server, entryPort, host);
    this.meter.start();
    this.upstreams.start(this.backend, this.logger);
    this.targetPolicy.start(this.backend, this.logger, this.opts.targetPolicyPollMs);
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
      clearInterval(this.handshakeSweeper);
      this.upstreams.stop();
      this.targetPolicy.stop();
      this.heartbeat.stop();
      for (const server of this.entryServers.values()) server.close();
      await closeServer(this.server, this.sockets, drainMs);
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
    this.handshaking.set(socket, Date.now());
    socket.on('close', () => {
      this.handshaking.delete(socket);
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
        // Relaying: an idle tunnel keeps neither the deadline nor the handshake's listener.
        this.handshaking.delete(socket);
        socket.off('end', endedEarly);
      });
    });
  }

  /** Closes the sockets whose handshake is past its deadline. */
  private sweepHandshakes(): void {
    const cutoff = Date.now() - this.handshakeTimeoutMs;
    for (const [socket, since] of this.handshaking) {
      if (since > cutoff) break; // in connection order: the rest are younger
      this.handshaking.delete(socket);
      this.logger.debug({ remote: socket.remoteAddress }, 'handshake timeout');
      socket.destroy();
    }
  }

  /** A handshake from `bytes` on, then the tunnel or the forwarded requests; `started` once relaying. */
  private serve(socket: Socket, bytes: Buffer, started?: () => void): void {
    this.dispatch(socket, bytes).then(
      (opened) => {
        if (!opened) return;
        started?.();
        const { accepted, target, protocol } = opened;
        if (accepted.forward) {
          const { session, target: asked, forward: request, leftover, requestedAt } = accepted;
          const first = { session, target: asked, socket: target, request, leftover, requestedAt };
          this.tunnels.forward(socket, first, this.forwardHooks);
        } else {
          // The policy or the account's own rules read the tunnel's first request when they could refuse a name.
          const judge = targetJudge(this.targetPolicy, accepted.session.account);
          const timeouts = { idleMs: this.tunnels.idleTimeoutMs, headMs: this.handshakeTimeoutMs };
          if (judge) void startAfterSni(socket, opened, judge, { tunnels: this.tunnels, metrics: this.metrics, logger: this.logger, timeouts });
          else this.tunnels.start(socket, target, accepted, protocol, opened.seq, opened.connectMs);
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
    let username: string | null = null;
    const accepted = await HANDSHAKES[protocol](new HandshakeReader(socket, first), (credentials) => {
      username = credentials ? credentials.username : null;
      return this.logins.login(credentials, socket.remoteAddress, this.entryPortOf(socket));
    });
    this.metrics.handshake(protocol, accepted);
    if (!accepted) return null;
    if (!accepted.ok) return this.refuse(socket, protocol, accepted, username === null ? null : proxyUserIdOf(username));
    const opened = await this.openTarget(accepted.session, accepted.target, socket, accepted.forward?.hostHeader);
    if (!opened) return null;
    if (!opened.ok) {
      this.metrics.tunnelRefused(protocol, opened.kind);
      recordUnrelayed(accepted, protocol, OUTCOME_OF_REFUSAL[opened.kind], opened.message);
      return this.refuse(socket, protocol, opened, accepted.session.parts.proxyUserId);
    }
    // The record's id, made now so that the CONNECT answer can name it (a forward's requests get theirs as they start).
    const seq = nextConnectionSeq();
    if (accepted.established) socket.write(protocol === 'http' ? connectEstablished(connectionHeaderId(seq)) : accepted.established);
    return { accepted, target: opened.socket, protocol, seq, connectMs: connectMsSince(accepted.requestedAt) };
  }

  private refuse(socket: Socket, protocol: ProtocolName, r: Refusal, proxyUserId: string | null = null): null {
    this.logger[refusalLogLevel(r)]({ protocol, kind: r.kind, reason: r.message, proxyUserId, remote: socket.remoteAddress }, 'proxy request refused');
    endWith(socket, answerTo(protocol, r, { publicUrl: this.publicUrl }));
    return null;
  }
}

export function createGateway(opts: GatewayOptions): Gateway {
  return new Gateway(opts);
}
