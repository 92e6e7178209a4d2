/**
 * The proxy gateway: one TCP port, the first byte decides (0x05 SOCKS5, anything else HTTP).
 * Protects the traffic we sell: nothing is relayed without valid credentials and a byte lease, and
 * nothing a client sends (garbage, half a handshake, a slow drip) can crash the process or keep
 * sockets open past the handshake timeout.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { locationString, parseProxyUsername, type ProxyUsernameParts } from '@proxyhub/core';
import { AuthCache, credKeyOf, DEFAULT_AUTH_CACHE_OPTIONS, type AuthCacheOptions } from './auth-cache';
import { createBackend, type Backend } from './backend';
import { createEgress, EgressError, type Egress } from './egress';
import { silentLogger, type Logger } from './log';
import { DEFAULT_LOGIN_LIMITS, LoginLimiter, type LoginLimitOptions } from './login-limit';
import { DEFAULT_METER_OPTIONS, Meter, type Account, type MeteredConnection, type MeterOptions } from './meter';
import {
  CONNECT_OK,
  header,
  httpResponse,
  originRequestHead,
  parseAbsoluteUri,
  parseAuthority,
  parseBasic,
  parseHttpHead,
  parseSocksAuth,
  parseSocksGreeting,
  parseSocksRequest,
  requestBodyLength,
  SOCKS,
  socksReply,
  type HostPort,
  type HttpHead,
} from './protocol';
import { coarseClock, Relay } from './relay';
import { StickySessions } from './sessions';

export interface GatewayOptions {
  gatewayId: string;
  /** The server's base URL and internal key; or a ready backend (tests). */
  serverUrl?: string;
  internalApiKey?: string;
  backend?: Backend;
  allowPrivate?: boolean;
  upstreamUrl?: string | undefined;
  logger?: Logger;
  handshakeTimeoutMs?: number;
  idleTimeoutMs?: number;
  connectTimeoutMs?: number;
  auth?: Partial<AuthCacheOptions>;
  loginLimits?: Partial<LoginLimitOptions>;
  meter?: Partial<Omit<MeterOptions, 'gatewayId' | 'backend' | 'logger'>>;
  /** Settle leases left open by an earlier process with this gateway id (a crash) on listen. */
  releaseStaleLeases?: boolean;
}

type Refusal = { ok: false; kind: RefusalKind; message: string };
type RefusalKind = 'missing' | 'malformed' | 'bad_credentials' | 'limited' | 'disabled' | 'bad_location' | 'empty' | 'forbidden' | 'dns' | 'refused' | 'unreachable' | 'timeout' | 'upstream' | 'unavailable';

interface Authenticated {
  ok: true;
  account: Account;
  credKey: string;
  parts: ProxyUsernameParts;
}

const handshakeDeadlines = new WeakMap<Socket, NodeJS.Timeout>();
const handshakeDone = new WeakSet<Socket>();
const ignoreError = () => undefined;

export const BALANCE_EMPTY_MESSAGE = 'Your proxy balance is empty: top up your credits to continue.';
const BAD_CREDENTIALS_MESSAGE = 'Invalid proxy username or password';
const MAX_PASSWORD_LENGTH = 256;

const HTTP_STATUS: Record<RefusalKind, number> = {
  missing: 407,
  malformed: 407,
  bad_credentials: 407,
  limited: 429,
  disabled: 407,
  bad_location: 407,
  empty: 402,
  forbidden: 403,
  dns: 502,
  refused: 502,
  unreachable: 502,
  upstream: 502,
  timeout: 504,
  unavailable: 503,
};

const SOCKS_REP: Record<RefusalKind, number> = {
  missing: SOCKS.REP.NOT_ALLOWED,
  malformed: SOCKS.REP.NOT_ALLOWED,
  bad_credentials: SOCKS.REP.NOT_ALLOWED,
  limited: SOCKS.REP.NOT_ALLOWED,
  disabled: SOCKS.REP.NOT_ALLOWED,
  bad_location: SOCKS.REP.NOT_ALLOWED,
  empty: SOCKS.REP.NOT_ALLOWED,
  forbidden: SOCKS.REP.NOT_ALLOWED,
  dns: SOCKS.REP.HOST_UNREACHABLE,
  refused: SOCKS.REP.REFUSED,
  unreachable: SOCKS.REP.NET_UNREACHABLE,
  upstream: SOCKS.REP.GENERAL,
  timeout: SOCKS.REP.TTL_EXPIRED,
  unavailable: SOCKS.REP.GENERAL,
};

export interface GatewayStats {
  connections: number;
  tunnels: number;
  accounts: number;
  heldBytes: number;
}

export class Gateway {
  readonly server: Server;
  readonly meter: Meter;
  readonly auth: AuthCache;
  readonly logins: LoginLimiter;
  private readonly backend: Backend;
  private readonly egress: Egress;
  private readonly sticky = new StickySessions();
  private readonly logger: Logger;
  private readonly sockets = new Set<Socket>();
  private readonly relays = new Set<Relay>();
  private idleTimer: NodeJS.Timeout | null = null;
  private tunnels = 0;
  private refreshTimer: NodeJS.Timeout | null = null;
  private closing: Promise<void> | null = null;
  private readonly handshakeTimeoutMs: number;
  private readonly idleTimeoutMs: number;

  constructor(private readonly opts: GatewayOptions) {
    this.logger = opts.logger ?? silentLogger;
    if (opts.backend) this.backend = opts.backend;
    else if (opts.serverUrl && opts.internalApiKey) this.backend = createBackend(opts.serverUrl, opts.internalApiKey);
    else throw new Error('gateway: serverUrl and internalApiKey (or a backend) are required');
    this.handshakeTimeoutMs = opts.handshakeTimeoutMs ?? 15_000;
    this.idleTimeoutMs = opts.idleTimeoutMs ?? 5 * 60_000;
    this.meter = new Meter({ ...DEFAULT_METER_OPTIONS, ...opts.meter, gatewayId: opts.gatewayId, backend: this.backend, logger: this.logger });
    const authOpts = { ...DEFAULT_AUTH_CACHE_OPTIONS, ...opts.auth };
    this.auth = new AuthCache(this.backend, authOpts, this.logger, (credKey, answer) => this.revoke(credKey, answer.ok ? '' : answer.message));
    this.logins = new LoginLimiter({ ...DEFAULT_LOGIN_LIMITS, ...opts.loginLimits });
    this.egress = createEgress({ allowPrivate: opts.allowPrivate ?? false, upstreamUrl: opts.upstreamUrl, connectTimeoutMs: opts.connectTimeoutMs ?? 10_000 });
    this.server = createServer({ allowHalfOpen: true, noDelay: true, pauseOnConnect: false }, (s) => this.onConnection(s));
    this.server.on('error', (err) => this.logger.error({ err }, 'gateway server error'));
    // Credentials of open connections are re-checked before their cache entry expires.
    this.refreshTimer = setInterval(() => this.auth.refreshInUse(this.credKeysInUse()), Math.max(250, authOpts.ttlMs / 2));
    this.refreshTimer.unref();
    // One sweeper for every tunnel's idle timeout, instead of two timers per tunnel.
    this.idleTimer = setInterval(() => this.sweepIdle(), Math.min(5000, Math.max(100, this.idleTimeoutMs / 4)));
    this.idleTimer.unref();
  }

  private sweepIdle(): void {
    const cutoff = coarseClock.now - this.idleTimeoutMs;
    for (const r of this.relays) if (r.lastIo < cutoff) r.close('idle timeout');
  }

  async listen(port: number, host = '0.0.0.0'): Promise<AddressInfo> {
    if (this.opts.releaseStaleLeases) {
      // Before taking traffic (a lease of ours must not be released by mistake); the server may
      // still be starting beside us, so this waits for it a little.
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          const r = await this.backend.releaseLeases({ gatewayId: this.opts.gatewayId });
          if (r.released) this.logger.info({ leases: r.released }, 'settled leases left by an earlier run');
          break;
        } catch (err) {
          if (Date.now() > deadline) {
            this.logger.warn({ err }, 'could not settle earlier leases (the server reconciles them after their timeout)');
            break;
          }
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    }
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.meter.start();
    return this.server.address() as AddressInfo;
  }

  /** Sends a usage report now and waits for the server to apply it. */
  flush(): Promise<void> {
    return this.meter.flush();
  }

  stats(): GatewayStats {
    return { connections: this.sockets.size, tunnels: this.tunnels, accounts: this.meter.accounts.size, heldBytes: this.meter.heldBytes() };
  }

  /**
   * Graceful shutdown: stop accepting, give open connections `drainMs` to finish, close the rest,
   * then report the last usage and return every unused leased byte.
   */
  close(drainMs = 0): Promise<void> {
    this.closing ??= (async () => {
      if (this.refreshTimer) clearInterval(this.refreshTimer);
      if (this.idleTimer) clearInterval(this.idleTimer);
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

  private credKeysInUse(): Set<string> {
    const keys = new Set<string>();
    for (const a of this.meter.accounts.values()) for (const c of a.conns) keys.add(c.credKey);
    return keys;
  }

  private revoke(credKey: string, why: string): void {
    for (const a of this.meter.accounts.values()) {
      for (const c of [...a.conns]) if (c.credKey === credKey) c.close(why);
    }
    this.logger.info({ why }, 'credentials revoked: connections closed');
  }

  private onConnection(socket: Socket): void {
    if (this.closing) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', ignoreError);
    // An absolute deadline, not an idle timer: a client dripping a byte at a time is cut off too.
    const deadline = setTimeout(() => {
      this.logger.debug({ remote: socket.remoteAddress }, 'handshake timeout');
      socket.destroy();
    }, this.handshakeTimeoutMs);
    handshakeDeadlines.set(socket, deadline);
    socket.once('close', () => clearTimeout(deadline));
    // EOF before the handshake completed: nothing can follow. (During the async part of the
    // handshake the socket is paused, so a client's half-close reaches the relay instead.)
    socket.once('end', () => {
      if (!socket.writableEnded && !handshakeDone.has(socket)) socket.destroy();
    });
    socket.once('data', (first: Buffer) => {
      if (first[0] === 5) this.socks(socket, first);
      else this.http(socket, first);
    });
  }

  // ---- HTTP: CONNECT and absolute-URI forwarding -------------------------------------------

  private http(socket: Socket, first: Buffer): void {
    let buf = first;
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      step();
    };
    const step = () => {
      const parsed = parseHttpHead(buf);
      if (parsed === null) return;
      socket.off('data', onData);
      socket.pause();
      if (!parsed.ok) {
        this.refuseHttp(socket, parsed.status, parsed.message);
        return;
      }
      void this.httpRequest(socket, parsed.head, buf.subarray(parsed.head.length)).catch((err: unknown) => {
        this.logger.error({ err }, 'http handler failed');
        socket.destroy();
      });
    };
    socket.on('data', onData);
    step();
  }

  private refuseHttp(socket: Socket, status: number, message: string): void {
    if (socket.destroyed) return;
    socket.end(httpResponse(status, message));
    // Drain (and drop) whatever the client still sends; the handshake timeout ends stragglers.
    socket.on('data', () => undefined);
    socket.resume();
  }

  private async httpRequest(socket: Socket, head: HttpHead, rest: Buffer): Promise<void> {
    const connect = head.method === 'CONNECT';
    let target: HostPort | null;
    let forward: { path: string; authority: string; bodyLength: number } | null = null;
    if (connect) {
      target = parseAuthority(head.target);
      if (!target) return this.refuseHttp(socket, 400, 'Malformed CONNECT target: expected host:port');
    } else {
      const uri = parseAbsoluteUri(head.target);
      if (!uri) return this.refuseHttp(socket, 400, 'This is a proxy: send CONNECT or an absolute http:// URI');
      const bodyLength = requestBodyLength(head);
      if (bodyLength === null) return this.refuseHttp(socket, 400, 'Malformed Content-Length');
      target = uri;
      forward = { path: uri.path, authority: uri.authority, bodyLength };
    }
    const creds = parseBasic(header(head, 'proxy-authorization'));
    if (!creds) return this.refuseHttp(socket, 407, 'Proxy authentication required: send your proxy username and password');
    const auth = await this.authenticate(creds.username, creds.password, socket.remoteAddress);
    if (!auth.ok) {
      this.logger.info({ kind: auth.kind, reason: auth.message, remote: socket.remoteAddress }, 'http proxy request refused');
      return this.refuseHttp(socket, HTTP_STATUS[auth.kind], auth.message);
    }
    const opened = await this.open(auth, target, socket);
    if (!opened) return;
    if (!opened.ok) {
      this.logger.info({ kind: opened.kind, reason: opened.message }, 'http proxy request refused');
      return this.refuseHttp(socket, HTTP_STATUS[opened.kind], opened.message);
    }
    if (connect) {
      socket.write(CONNECT_OK);
      this.startRelay(socket, opened.target, auth, { initialUp: rest });
    } else {
      const originHead = originRequestHead(head, forward!.path, forward!.authority);
      const body = rest.length > forward!.bodyLength ? rest.subarray(0, forward!.bodyLength) : rest;
      this.startRelay(socket, opened.target, auth, {
        initialUp: Buffer.concat([originHead, body]),
        upLimit: originHead.length + forward!.bodyLength,
      });
    }
  }

  // ---- SOCKS5 ------------------------------------------------------------------------------

  private socks(socket: Socket, first: Buffer): void {
    let buf = first;
    let stage: 'greeting' | 'auth' | 'request' | 'busy' = 'greeting';
    let auth: Authenticated | null = null;
    const fail = (reply: Buffer | null, why: string) => {
      this.logger.info({ why, remote: socket.remoteAddress }, 'socks5 refused');
      socket.off('data', onData);
      if (!reply || socket.destroyed) {
        socket.destroy();
        return;
      }
      // The reply goes out, then the client should hang up; the handshake timeout ends stragglers.
      socket.end(reply);
      socket.on('data', () => undefined);
      socket.resume();
    };
    const onData = (chunk: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      if (buf.length > 1024) return fail(null, 'handshake too long');
      step();
    };
    const step = (): void => {
      if (stage === 'greeting') {
        const g = parseSocksGreeting(buf);
        if (!g) return;
        if ('error' in g) return fail(null, g.error);
        buf = buf.subarray(g.length);
        if (!g.methods.includes(2)) return fail(SOCKS.NO_ACCEPTABLE, 'client offers no username/password method');
        socket.write(SOCKS.USERPASS);
        stage = 'auth';
      }
      if (stage === 'auth') {
        const a = parseSocksAuth(buf);
        if (!a) return;
        if ('error' in a) return fail(null, a.error);
        buf = buf.subarray(a.length);
        stage = 'busy';
        socket.pause();
        void this.authenticate(a.username, a.password, socket.remoteAddress).then(
          (r) => {
            if (socket.destroyed) return;
            if (!r.ok) return fail(SOCKS.AUTH_FAIL, `${r.kind}: ${r.message}`);
            auth = r;
            socket.write(SOCKS.AUTH_OK);
            stage = 'request';
            socket.resume();
            step();
          },
          (err: unknown) => {
            this.logger.error({ err }, 'socks5 auth failed');
            socket.destroy();
          },
        );
        return;
      }
      if (stage === 'request') {
        const r = parseSocksRequest(buf);
        if (!r) return;
        if ('error' in r) return fail(socksReply(r.rep), r.error);
        const rest = buf.subarray(r.length);
        stage = 'busy';
        socket.off('data', onData);
        socket.pause();
        void this.open(auth!, r, socket).then(
          (opened) => {
            if (!opened) return;
            if (!opened.ok) return fail(socksReply(SOCKS_REP[opened.kind]), `${opened.kind}: ${opened.message}`);
            socket.write(socksReply(SOCKS.REP.OK));
            this.startRelay(socket, opened.target, auth!, { initialUp: rest });
          },
          (err: unknown) => {
            this.logger.error({ err }, 'socks5 connect failed');
            socket.destroy();
          },
        );
      }
    };
    socket.on('data', onData);
    step();
  }

  // ---- shared: authenticate, open the target, relay ------------------------------------------

  private async authenticate(username: string, password: string, remote: string | undefined): Promise<Authenticated | Refusal> {
    if (!username) return { ok: false, kind: 'missing', message: 'Proxy authentication required' };
    const parsed = parseProxyUsername(username);
    if (!parsed.ok) return { ok: false, kind: 'malformed', message: `Malformed proxy username: ${parsed.reason}` };
    const parts = parsed.value;
    const attempt = this.logins.attempt(remote, parts.proxyUserId);
    if (!attempt) return { ok: false, kind: 'limited', message: 'Too many failed proxy logins: try again in a minute' };
    const failed = (): Refusal => {
      if (attempt.failed()) this.logger.warn({ remote }, 'too many failed proxy logins: address limited');
      return { ok: false, kind: 'bad_credentials', message: BAD_CREDENTIALS_MESSAGE };
    };
    // No password the server could accept (it takes 1 to 256 characters): no call.
    if (!password || password.length > MAX_PASSWORD_LENGTH) return failed();
    let answer;
    try {
      answer = await this.auth.check(parts.proxyUserId, password, parts.location);
    } catch (err) {
      attempt.abandoned();
      this.logger.warn({ err }, 'authorization call failed');
      return { ok: false, kind: 'unavailable', message: 'Proxy authentication is temporarily unavailable, try again' };
    }
    if (!answer.account.ok && answer.account.reason === 'bad_credentials') return failed();
    attempt.succeeded();
    if (!answer.account.ok) return { ok: false, kind: 'disabled', message: answer.account.message };
    if (!answer.locationKnown) return { ok: false, kind: 'bad_location', message: `Unknown location: ${locationString(parts.location)}` };
    const account = this.meter.account(answer.account.proxyAccountId, answer.account.usageType);
    return { ok: true, account, credKey: credKeyOf(parts.proxyUserId, password), parts };
  }

  /** Lease first, then the target. Null when the client went away meanwhile. */
  private async open(auth: Authenticated, target: HostPort, client: Socket): Promise<{ ok: true; target: Socket } | Refusal | null> {
    const acc = auth.account;
    // Counted as a connection of the account from here, so an idle release cannot pull its leases.
    const pending: MeteredConnection = { credKey: auth.credKey, close: () => client.destroy() };
    acc.conns.add(pending);
    try {
      if (acc.available <= 0) {
        const r = await acc.ensure(1);
        if (r === 'empty') return { ok: false, kind: 'empty', message: BALANCE_EMPTY_MESSAGE };
        if (r === 'disabled') return { ok: false, kind: 'disabled', message: 'This proxy account is disabled' };
        if (r === 'error') return { ok: false, kind: 'unavailable', message: 'Proxy metering is temporarily unavailable, try again' };
      }
      if (client.destroyed) return null;
      const { parts } = auth;
      let socket: Socket;
      try {
        socket = await this.egress({
          host: target.host,
          port: target.port,
          location: parts.location,
          session: this.sticky.get(parts.proxyUserId, parts.token, parts.durationMinutes),
          durationMinutes: parts.durationMinutes,
        });
      } catch (err) {
        if (err instanceof EgressError) return { ok: false, kind: err.kind, message: err.message };
        throw err;
      }
      if (client.destroyed) {
        socket.destroy();
        return null;
      }
      acc.countSession();
      return { ok: true, target: socket };
    } finally {
      acc.conns.delete(pending);
    }
  }

  private startRelay(client: Socket, target: Socket, auth: Authenticated, opts: { initialUp?: Buffer; upLimit?: number }): void {
    this.tunnels += 1;
    clearTimeout(handshakeDeadlines.get(client));
    handshakeDone.add(client);
    const relay = new Relay(client, target, auth.account, auth.credKey, {
      initialUp: opts.initialUp,
      upLimit: opts.upLimit,
      onClose: () => {
        this.tunnels -= 1;
        this.relays.delete(relay);
      },
    });
    this.relays.add(relay);
    relay.start();
  }
}

export function createGateway(opts: GatewayOptions): Gateway {
  return new Gateway(opts);
}
