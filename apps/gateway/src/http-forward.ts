/**
 * HTTP forwarding on a persistent client connection (HTTP/1.1 keep-alive, pipelining included):
 * requests are served one after another and answered in order. Protects the traffic we sell the
 * same way a tunnel does: each request is authorised (the same Proxy-Authorization as the last one
 * reuses its login; revocation closes the connection through the account, as it closes tunnels),
 * and every byte of each request and response is spent from the account's leases before it is
 * written (relay.ts's rules: backpressure, waiting for a lease, the cut at zero balance). A request
 * after the balance ran out gets the 402 a new connection gets.
 * The connection to the origin is kept for the next request to the same origin, for this client
 * connection only: never shared between clients, so nothing one client sends can reach another's
 * exchange. Bytes pass through unchanged but for the request head (origin-form, no proxy or
 * hop-by-hop headers); http-framing.ts only says where each message ends. A response that is not
 * HTTP/1.x is relayed as it comes until the origin closes, and the client connection ends with it.
 */
import type { Socket } from 'node:net';
import type { Session } from './authenticator';
import type { TargetSocket } from './egress';
import type { Logger } from './log';
import { DOWN, UP, type Account, type MeteredConnection } from './meter';
import { leaseRefusal, type OpenTarget } from './open-target';
import { refusal, type Credentials, type Refusal } from './protocols/handshake';
import type { HostPort } from './protocols/host';
import { credentialsOf, httpRequestOf, originRequestHead, parseHttpHead, type ForwardRequest } from './protocols/http';
import { BodyTracker, mayBeHttpResponse, parseResponseHead, responseCloses, responseFraming, type Framing } from './protocols/http-framing';
import { coarseClock, CUT_DELIVERY_MS, RELAY_BUFFER_BYTES } from './relay';
import { writeChunk } from './shared-reads';
import { usageTag, type UsageTag } from './usage-parts';

export interface ForwardHooks {
  logger: Logger;
  login(credentials: Credentials | null, remote: string | undefined): Promise<Session | Refusal>;
  openTarget: OpenTarget;
  /** Answers a refused request (answers.ts), logs it and ends the connection. */
  refuse(client: Socket, r: Refusal, proxyUserId: string | null): void;
  /** The origin could not be reached (counted like a tunnel's refusal). */
  targetRefused(r: Refusal): void;
  /** A CONNECT after forwarded requests: the gateway serves the connection from these bytes on, as a new one. */
  handOver(client: Socket, bytes: Buffer): void;
}

/** The first request, as the handshake read it and the gateway opened its target. */
export interface FirstRequest {
  session: Session;
  target: HostPort;
  socket: TargetSocket;
  request: ForwardRequest;
  /** Client bytes after the first request's head. */
  leftover: Buffer;
}

const EMPTY = Buffer.alloc(0);
/**
 * Client bytes read ahead while a request is served (pipelined requests): beyond this the client
 * is paused. Reading on meanwhile is how a client that goes away is noticed.
 */
const READ_AHEAD_BYTES = 64 * 1024;
const CLOSE_DELIMITED: Framing = { kind: 'close' };
/** Sent again on a new connection when a kept one turns out closed before any answer (RFC 9110 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/**
 * `head`: reading the next request head; `busy`: login, lease or connect under way; `body`: the
 * request (and its body) goes out, the response may start; `response`: the request is out, the
 * response comes; `closing`: nothing more is served.
 */
type Phase = 'head' | 'busy' | 'body' | 'response' | 'closing';

/** One direction: paused for a lease (chunks and follow-up steps held, in order) or for a full buffer. */
interface Flow {
  lease: boolean;
  drain: boolean;
  held: Array<Buffer | (() => void)>;
}

/** One request and its response. */
interface Exchange {
  method: string;
  target: HostPort;
  /** As sent to the origin (sent again on a retry). */
  head: Buffer;
  body: BodyTracker;
  close: boolean;
  retryable: boolean;
  requestDone: boolean;
  /** Response head bytes until the head is whole (copied: reads may land in a shared buffer). */
  respHead: Buffer;
  respBody: BodyTracker | null;
  respStarted: boolean;
  respClose: boolean;
  respDone: boolean;
  targetEnded: boolean;
}

export class HttpForward implements MeteredConnection {
  /** Last time a byte moved either way (coarse clock); the idle sweeper closes idle connections. */
  lastIo = coarseClock.now;
  /** Since when a partial request head has been waiting (0: none): the sweeper's head deadline. */
  headSince = 0;
  credKey: string;
  readonly remote: string | undefined;
  private session: Session;
  private account: Account;
  private authorization: string | undefined;
  private usage: UsageTag;
  private sessionCounted = false;
  private target: TargetSocket | null = null;
  private targetKey = '';
  /** The origin connection answered a whole response before (a kept connection). */
  private targetServed = false;
  /** The origin sent bytes nobody asked for: its connection is not used again. */
  private targetSpoiled = false;
  private phase: Phase = 'busy';
  /** Client bytes read and not yet served: the start of the next request (pipelining). */
  private buf: Buffer = EMPTY;
  private ex: Exchange | null = null;
  private clientEnded = false;
  private closed = false;
  private readonly up: Flow = { lease: false, drain: false, held: [] };
  private readonly down: Flow = { lease: false, drain: false, held: [] };

  constructor(
    readonly client: Socket,
    private readonly first: FirstRequest,
    private readonly hooks: ForwardHooks,
    private readonly onClose: () => void,
  ) {
    this.remote = client.remoteAddress;
    this.session = first.session;
    this.account = first.session.account;
    this.credKey = first.session.credKey;
    this.usage = usageTag('http', first.session.parts.location);
  }

  start(): void {
    const { client, first } = this;
    this.useSession(first.session, first.request.authorization);
    client.on('data', this.fromClient);
    client.on('end', this.clientEnd);
    client.on('close', this.clientClose);
    client.on('drain', this.clientDrain);
    client.on('error', this.clientError);
    this.attach(first.socket, keyOf(first.target));
    this.buf = first.leftover.length ? first.leftover : EMPTY;
    this.startRequest(first.target, first.request);
  }

  // ---- requests ---------------------------------------------------------------------------------

  private readonly fromClient = (chunk: Buffer): void => {
    if (this.phase === 'closing') return;
    this.lastIo = coarseClock.now;
    if (this.phase === 'body') return this.requestBody(chunk);
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    if (this.phase === 'head') this.nextRequest();
    else if (this.buf.length >= READ_AHEAD_BYTES) this.flow();
  };

  /** The next request from the bytes read so far, or more reading. */
  private nextRequest(): void {
    const parsed = this.buf.length ? parseHttpHead(this.buf) : null;
    if (parsed === null) {
      if (this.clientEnded) return this.finishClient();
      this.headSince = this.buf.length ? this.headSince || coarseClock.now : 0;
      return this.flow();
    }
    this.headSince = 0;
    if (!parsed.ok) return this.refuse(parsed, null);
    const { head } = parsed;
    if (head.method === 'CONNECT') return this.handOver();
    this.buf = this.buf.length > head.length ? this.buf.subarray(head.length) : EMPTY;
    const request = httpRequestOf(head);
    if (!request.ok) return this.refuse(request, null);
    this.phase = 'busy';
    this.flow();
    this.begin(request.target, request.forward!).catch((err: unknown) => {
      this.hooks.logger.error({ err }, 'forwarded request failed');
      this.destroy();
    });
  }

  /** The login (unless the credentials are the last request's), the lease, then the origin connection. */
  private async begin(target: HostPort, request: ForwardRequest): Promise<void> {
    if (request.authorization !== this.authorization) {
      const credentials = credentialsOf(request.authorization);
      if (credentials && 'ok' in credentials) return this.refuse(credentials, null);
      const session = await this.hooks.login(credentials, this.remote);
      if (this.phase !== 'busy') return;
      if (!session.ok) return this.refuse(session, credentials ? proxyUserIdOf(credentials.username) : null);
      this.useSession(session, request.authorization);
    }
    const noLease = await leaseRefusal(this.account);
    if (this.phase !== 'busy') return;
    if (noLease) return this.refuse(noLease, this.session.parts.proxyUserId);
    const key = keyOf(target);
    const t = this.target;
    if (!t || this.targetKey !== key || t.destroyed || t.readableEnded || t.writableEnded) {
      this.dropTarget();
      const opened = await this.hooks.openTarget(this.session, target, this.client);
      if (this.phase !== 'busy') {
        if (opened?.ok) opened.socket.destroy();
        return;
      }
      if (!opened) return this.destroy();
      if (!opened.ok) {
        this.hooks.targetRefused(opened);
        return this.refuse(opened, this.session.parts.proxyUserId);
      }
      this.attach(opened.socket, key);
    }
    this.startRequest(target, request);
  }

  private startRequest(target: HostPort, request: ForwardRequest): void {
    const head = originRequestHead(request.head, request.path, request.authority, request.close);
    const body = new BodyTracker(request.body);
    const ex: Exchange = {
      method: request.head.method,
      target,
      head,
      body,
      close: request.close,
      retryable: this.targetServed && body.done && IDEMPOTENT.has(request.head.method),
      requestDone: false,
      respHead: EMPTY,
      respBody: null,
      respStarted: false,
      respClose: false,
      respDone: false,
      targetEnded: false,
    };
    this.ex = ex;
    this.phase = 'body';
    this.send(UP, head, true);
    if (body.done) this.after(UP, () => this.requestSent(ex));
    else if (this.buf.length) {
      const rest = this.buf;
      this.buf = EMPTY;
      this.requestBody(rest);
    }
    this.flow();
  }

  private requestBody(chunk: Buffer): void {
    const ex = this.ex!;
    const n = ex.body.consume(chunk, 0);
    // The client broke its own body's framing: nothing after it can be read safely.
    if (ex.body.error) return this.destroy();
    if (n) this.send(UP, n === chunk.length ? chunk : chunk.subarray(0, n), true);
    if (n < chunk.length) this.buf = chunk.subarray(n);
    if (ex.body.done) this.after(UP, () => this.requestSent(ex));
  }

  private requestSent(ex: Exchange): void {
    if (ex !== this.ex || this.phase !== 'body') return;
    ex.requestDone = true;
    this.phase = 'response';
    if (this.clientEnded) this.target?.end();
    this.flow();
  }

  // ---- responses --------------------------------------------------------------------------------

  private fromTarget(socket: TargetSocket, chunk: Buffer, owned: boolean): void {
    if (socket !== this.target || this.phase === 'closing') return;
    this.lastIo = coarseClock.now;
    const ex = this.ex;
    if (!ex || ex.respDone) {
      // Bytes nobody asked for: that connection is not used again.
      this.dropTarget();
      return;
    }
    let off = 0;
    while (off < chunk.length && !ex.respBody?.done) {
      if (ex.respBody) {
        const n = ex.respBody.consume(chunk, off);
        // The origin broke its framing midway: the client cannot be told, only cut off.
        if (ex.respBody.error) return this.destroy();
        if (n) this.send(DOWN, off === 0 && n === chunk.length ? chunk : chunk.subarray(off, off + n), owned);
        off += n;
        continue;
      }
      const rest = owned ? chunk.subarray(off) : Buffer.from(chunk.subarray(off));
      const buf = ex.respHead.length ? Buffer.concat([ex.respHead, rest]) : rest;
      off = chunk.length;
      if (!mayBeHttpResponse(buf)) {
        // Not HTTP/1.x: relayed as it comes until the origin closes, which ends the client connection.
        ex.respHead = EMPTY;
        ex.respBody = new BodyTracker(CLOSE_DELIMITED);
        ex.respClose = true;
        ex.respStarted = true;
        this.send(DOWN, buf, true);
        break;
      }
      const parsed = parseResponseHead(buf);
      if (parsed === null) {
        ex.respHead = buf;
        break;
      }
      if (!parsed.ok) return this.badResponse(ex, parsed);
      const head = parsed.head;
      ex.respHead = EMPTY;
      if (head.status >= 200 || head.status === 101) {
        // 101 would switch protocols; requests go without Upgrade, so it is only relayed to the end.
        const framing = head.status === 101 ? CLOSE_DELIMITED : responseFraming(ex.method, head);
        if (!framing) return this.badResponse(ex, refusal('upstream', 'The origin sent a response without a readable length'));
        ex.respBody = new BodyTracker(framing);
        ex.respClose = framing.kind === 'close' || responseCloses(head);
      }
      // An interim response (100 Continue) is passed on; the final one follows on the same connection.
      ex.respStarted = true;
      this.send(DOWN, buf.subarray(0, head.length), true);
      chunk = buf;
      off = head.length;
      owned = true;
    }
    if (ex.respBody?.done && !ex.respDone) {
      ex.respDone = true;
      if (off < chunk.length) this.targetSpoiled = true;
      this.after(DOWN, () => this.responseSent(ex));
    }
  }

  /** The whole response reached the client's socket: the next request, or the end of the connection. */
  private responseSent(ex: Exchange): void {
    if (ex !== this.ex || this.phase === 'closing') return;
    this.targetServed = true;
    // A response before its request's body was all sent: the rest of that body cannot be told from a next request.
    if (!ex.requestDone || ex.close || ex.respClose) return this.finishClient();
    if (this.targetSpoiled) this.dropTarget();
    this.ex = null;
    this.phase = 'head';
    this.nextRequest();
  }

  /** A response that cannot be relayed safely: a 502 when the client has none of it yet, else the end. */
  private badResponse(ex: Exchange, r: Refusal): void {
    if (!ex.respStarted) return this.refuse(r, this.session.parts.proxyUserId);
    this.destroy();
  }

  // ---- the origin connection ----------------------------------------------------------------------

  private attach(socket: TargetSocket, key: string): void {
    this.target = socket;
    this.targetKey = key;
    this.targetServed = false;
    this.targetSpoiled = false;
    this.usage = usageTag('http', this.session.parts.location, socket.upstreamId);
    if (!this.sessionCounted) {
      this.sessionCounted = true;
      this.account.countSession(this.usage);
    }
    socket.on('error', () => socket.destroy());
    socket.on('end', () => this.targetEnded(socket));
    socket.on('close', () => this.targetClosed(socket));
    socket.on('drain', () => {
      if (socket !== this.target || !this.up.drain) return;
      this.up.drain = false;
      this.flow();
    });
    if (socket.sharedReads) {
      // Direct origins read into the shared buffer (shared-reads.ts): whatever is held past this call is copied.
      socket.onSharedRead = (chunk, owned) => this.fromTarget(socket, chunk, owned);
      for (const chunk of socket.earlyReads?.splice(0) ?? []) this.fromTarget(socket, chunk, true);
    } else {
      socket.on('data', (chunk: Buffer) => this.fromTarget(socket, chunk, true));
    }
    socket.resume();
  }

  private targetEnded(socket: TargetSocket): void {
    if (socket !== this.target || this.phase === 'closing') return;
    const ex = this.ex;
    // A kept connection the origin closed while idle: the next request opens another.
    if (!ex || ex.respDone) return this.dropTarget();
    if (this.mayRetry(ex)) return void this.retry(ex);
    ex.targetEnded = true;
    ex.respBody?.ended();
    if (ex.respBody?.done) {
      ex.respDone = true;
      ex.respClose = true;
      this.after(DOWN, () => this.responseSent(ex));
      return;
    }
    // The origin closed before its response was whole: the client gets what came, then the end.
    this.after(DOWN, () => this.finishClient());
  }

  private targetClosed(socket: TargetSocket): void {
    if (socket !== this.target || this.phase === 'closing') return;
    const ex = this.ex;
    if (!ex || ex.respDone) return this.dropTarget();
    if (ex.targetEnded) return;
    if (this.mayRetry(ex)) return void this.retry(ex);
    // An abortive close mid-exchange ends the client connection the same way.
    this.destroy();
  }

  /** A kept connection that closed before any of the answer to a request that may be sent twice. */
  private mayRetry(ex: Exchange): boolean {
    return ex.retryable && !ex.respStarted && ex.respHead.length === 0 && !this.up.lease;
  }

  private async retry(ex: Exchange): Promise<void> {
    ex.retryable = false;
    this.dropTarget();
    const opened = await this.hooks.openTarget(this.session, ex.target, this.client);
    if (ex !== this.ex || this.phase === 'closing') {
      if (opened?.ok) opened.socket.destroy();
      return;
    }
    if (!opened) return this.destroy();
    if (!opened.ok) {
      this.hooks.targetRefused(opened);
      return this.refuse(opened, this.session.parts.proxyUserId);
    }
    this.attach(opened.socket, keyOf(ex.target));
    this.send(UP, ex.head, true);
    this.flow();
  }

  private dropTarget(): void {
    const t = this.target;
    if (!t) return;
    this.target = null;
    this.targetKey = '';
    this.targetServed = false;
    this.targetSpoiled = false;
    this.up.drain = false;
    t.destroy();
  }

  // ---- metering and flow --------------------------------------------------------------------------

  /** Spends and writes `chunk` (to the origin for UP, the client for DOWN), or holds it for a lease. */
  private send(dir: number, chunk: Buffer, owned: boolean): void {
    const flow = dir === UP ? this.up : this.down;
    if (flow.lease) {
      flow.held.push(owned ? chunk : Buffer.from(chunk));
      return;
    }
    if (this.account.available >= chunk.length) {
      this.write(dir, chunk, owned);
      return;
    }
    flow.lease = true;
    flow.held.push(owned ? chunk : Buffer.from(chunk));
    this.flow();
    this.awaitLease(flow, dir);
  }

  /** Runs `step` once everything sent in that direction so far has been written. */
  private after(dir: number, step: () => void): void {
    const flow = dir === UP ? this.up : this.down;
    if (flow.lease) flow.held.push(step);
    else step();
  }

  /** `owned` false: the chunk lives in the shared read buffer (shared-reads.ts). */
  private write(dir: number, chunk: Buffer, owned = true): void {
    const dst = dir === UP ? this.target : this.client;
    if (!dst || dst.destroyed || chunk.length === 0) return;
    this.account.spend(chunk.length, dir, this.usage);
    // As in relay.ts: pause only when the destination really holds data back.
    if (!writeChunk(dst, chunk, owned) && dst.writableLength > RELAY_BUFFER_BYTES) {
      (dir === UP ? this.up : this.down).drain = true;
      this.flow();
    }
  }

  private awaitLease(flow: Flow, dir: number): void {
    const acc = this.account;
    const first = flow.held[0] as Buffer;
    acc.whenAvailable(first.length, (r) => {
      if (this.over()) return;
      if (r === 'error') {
        // The server is unreachable: wait with the data in hand (not idling) until a lease comes.
        this.lastIo = coarseClock.now;
        setTimeout(() => this.awaitLease(flow, dir), Math.max(50, acc.retryAt - Date.now())).unref();
        return;
      }
      // Called in the turn the first held chunk's bytes are there: later chunks may need another lease.
      while (flow.held.length) {
        const item = flow.held[0]!;
        if (typeof item === 'function') {
          flow.held.shift();
          item();
          if (this.over()) return;
          continue;
        }
        if (acc.available >= item.length) {
          flow.held.shift();
          this.write(dir, item);
          continue;
        }
        if (r === 'granted') return this.awaitLease(flow, dir);
        // What is left of the balance is sent, nothing beyond it.
        if (acc.available > 0) this.write(dir, item.subarray(0, acc.available));
        if (r === 'disabled') acc.closeAll('account disabled');
        else acc.cutOff();
        return;
      }
      flow.lease = false;
      this.flow();
    });
  }

  /** Reads from the client unless the origin is held back or enough is read ahead; from the origin unless the client is. */
  private flow(): void {
    if (this.closed || this.phase === 'closing') return;
    const read = this.phase === 'body' ? !this.up.lease && !this.up.drain : this.phase === 'head' || this.buf.length < READ_AHEAD_BYTES;
    if (read) this.client.resume();
    else this.client.pause();
    const t = this.target;
    if (!t) return;
    if (this.down.lease || this.down.drain) t.pause();
    else t.resume();
  }

  private readonly clientDrain = (): void => {
    if (!this.down.drain) return;
    this.down.drain = false;
    this.flow();
  };

  // ---- sessions, endings --------------------------------------------------------------------------

  private useSession(session: Session, authorization: string | undefined): void {
    if (session.account !== this.account || !this.account.conns.has(this)) {
      this.account.conns.delete(this);
      session.account.conns.add(this);
    }
    // Another login on the same connection: its location and sticky session pick the exit anew.
    if (this.sessionCounted) this.dropTarget();
    this.session = session;
    this.account = session.account;
    this.credKey = session.credKey;
    this.authorization = authorization;
    this.sessionCounted = false;
    this.usage = usageTag('http', session.parts.location);
  }

  /** The client sent its last request: what it sent is still answered (nextRequest ends the connection after). */
  private readonly clientEnd = (): void => {
    this.clientEnded = true;
    if (this.phase === 'head') return this.nextRequest();
    // Half-close passes through once a request is out (an origin may wait for it to end its answer).
    if (this.phase === 'body' || this.phase === 'response') this.target?.end();
  };

  private readonly clientClose = (): void => {
    this.phase = 'closing';
    this.dropTarget();
    this.finish();
  };

  private readonly clientError = (): void => this.destroy();

  /** Ends the client connection once what was written is delivered; what it still sends is dropped. */
  private finishClient(): void {
    if (this.phase === 'closing') return;
    this.phase = 'closing';
    this.dropTarget();
    this.client.end();
    this.client.resume();
    setTimeout(() => this.destroy(), CUT_DELIVERY_MS).unref();
  }

  private refuse(r: Refusal, proxyUserId: string | null): void {
    if (this.phase === 'closing') return;
    this.phase = 'closing';
    this.dropTarget();
    this.hooks.refuse(this.client, r, proxyUserId);
    setTimeout(() => this.destroy(), CUT_DELIVERY_MS).unref();
  }

  /** A CONNECT: the gateway takes the connection back with the bytes from that request on. */
  private handOver(): void {
    const bytes = this.buf;
    this.buf = EMPTY;
    this.phase = 'closing';
    const { client } = this;
    client.off('data', this.fromClient);
    client.off('end', this.clientEnd);
    client.off('close', this.clientClose);
    client.off('drain', this.clientDrain);
    client.off('error', this.clientError);
    client.pause();
    this.dropTarget();
    this.done();
    this.hooks.handOver(client, bytes);
  }

  close(_reason: string): void {
    this.destroy();
  }

  /** Nothing more is served (a step run from a held queue may have ended it). */
  private over(): boolean {
    return this.closed || this.phase === 'closing';
  }

  /** Balance empty: as relay.ts's cut; nothing more is relayed, what was paid for is delivered. */
  cut(): void {
    if (this.closed || this.phase === 'closing') return;
    this.phase = 'closing';
    const t = this.target;
    this.target = null;
    if (t) {
      if (t.writableLength === 0) t.destroy();
      else {
        t.end();
        t.once('finish', () => t.destroy());
      }
    }
    this.client.end();
    this.client.resume();
    setTimeout(() => this.destroy(), CUT_DELIVERY_MS).unref();
  }

  destroy(): void {
    this.phase = 'closing';
    this.client.destroy();
    this.dropTarget();
    this.finish();
  }

  private finish(): void {
    if (!this.client.destroyed) return;
    this.done();
  }

  private done(): void {
    if (this.closed) return;
    this.closed = true;
    this.account.conns.delete(this);
    this.account.lastActivity = Date.now();
    this.onClose();
  }
}

function keyOf(t: HostPort): string {
  return `${t.host}\0${t.port}`;
}

/** The proxy user id a username starts with, when it looks like one (logged, so nothing else of it). */
export function proxyUserIdOf(username: string): string | null {
  const id = username.split('_', 1)[0]!.toLowerCase();
  return /^[a-z0-9]{1,32}$/.test(id) ? id : null;
}
