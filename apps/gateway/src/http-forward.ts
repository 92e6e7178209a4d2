/**
 * HTTP forwarding on a persistent client connection (HTTP/1.1 keep-alive, pipelining included):
 * requests are served one after another and answered in order. Each request is authorised (the
 * same Proxy-Authorization as the last one reuses its login; revocation closes the connection
 * through the account, as it closes tunnels) and its bytes both ways are metered like a tunnel's
 * (metered-flow.ts); a request after the balance ran out gets the 402 a new connection gets. The
 * origin connection is kept for the next request to the same origin (http-origin.ts). Bytes pass
 * through unchanged but for the request head (origin-form, no proxy or hop-by-hop headers);
 * http-exchange.ts says where each message ends.
 */
import type { Socket } from 'node:net';
import type { ConnectionOutcome } from '@proxyhub/core';
import { connectMsSince, OUTCOME_OF_REFUSAL, outcomeOfClose } from './connection-log/record';
import type { Session } from './authenticator';
import type { TargetSocket } from './egress';
import { DOWN, UP, type MeteredConnection } from './meter';
import { newExchange, READ_AHEAD_BYTES, readResponse, type Exchange, type FirstRequest, type Phase } from './http-exchange';
import { Origin } from './http-origin';
import { coarseClock, CUT_DELIVERY_MS, leaseRefusal, MeteredFlow, type FlowOwner } from './metered-flow';
import type { Refusal } from './protocols/handshake';
import type { HostPort } from './protocols/host';
import { httpRequestOf, parseHttpHead, type ForwardRequest } from './protocols/http';
import { usageTag } from './usage-parts';
import type { ForwardHooks } from './gateway-parts';

const EMPTY = Buffer.alloc(0);
export class HttpForward implements MeteredConnection, FlowOwner {
  /** Last time a byte moved either way (coarse clock); the idle sweeper closes idle connections. */
  lastIo = coarseClock.now;
  /** Since when a partial request head has been waiting (0: none): the sweeper's head deadline. */
  headSince = 0;
  credKey: string;
  readonly remote: string | undefined;
  private session: Session;
  private authorization: string | undefined;
  /** Spending, counting, lease waits and the cut (metered-flow.ts). */
  private readonly m: MeteredFlow;
  private readonly origin: Origin;
  private phase: Phase = 'busy';
  /** Client bytes read and not yet served: the start of the next request (pipelining). */
  private buf: Buffer = EMPTY;
  private ex: Exchange | null = null;
  private clientEnded = false;
  private closed = false;
  /** The request being logged in (login done) that has not reached startRequest: a refusal now is its record. */
  private asked: HostPort | null = null;
  /** How the request in flight ends if the connection does (the connection log's outcome). */
  private ending: { outcome: ConnectionOutcome; reason: string } | null = null;
  /** When the request in hand's head was read: its connect time runs to its origin connection being ready (0 ms on a kept one). */
  private requestedAt = 0;

  constructor(
    readonly client: Socket,
    private readonly first: FirstRequest,
    private readonly hooks: ForwardHooks,
    private readonly onClose: () => void,
  ) {
    this.remote = client.remoteAddress;
    this.session = first.session;
    this.credKey = first.session.credKey;
    this.m = new MeteredFlow(this, client, first.session.account, usageTag('http', first.session.parts.location));
    this.origin = new Origin(this.m, {
      data: (socket, chunk, owned) => this.fromTarget(socket, chunk, owned),
      ended: (socket) => this.targetEnded(socket),
      closed: (socket) => this.targetClosed(socket),
    });
  }

  start(): void {
    const { client, first } = this;
    this.useSession(first.session, first.request.authorization);
    for (const [event, listener] of this.clientListeners) client.on(event, listener);
    this.attach(first.socket, first.target);
    this.buf = first.leftover.length ? first.leftover : EMPTY;
    this.requestedAt = first.requestedAt;
    this.startRequest(first.target, first.request);
  }

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
    this.requestedAt = Date.now();
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
      const login = await this.hooks.login(request.authorization, this.client);
      if (this.phase !== 'busy') return;
      if (!login.ok) return this.refuse(login, login.proxyUserId);
      this.useSession(login, request.authorization);
    }
    this.asked = target;
    // Every request is checked, also one sent on a kept origin connection: its Host may name another site.
    const blocked = this.hooks.blocked(this.session, [target.host, request.hostHeader]);
    if (blocked) {
      this.hooks.targetRefused(blocked);
      return this.refuse(blocked, this.session.parts.proxyUserId);
    }
    const noLease = await leaseRefusal(this.m.account);
    if (this.phase !== 'busy') return;
    if (noLease) return this.refuse(noLease, this.session.parts.proxyUserId);
    if (this.origin.fits(target) || (await this.open(target, () => this.phase === 'busy'))) this.startRequest(target, request);
  }

  /** A new origin connection; false when refused, or no longer `wanted` once it opened. */
  private async open(target: HostPort, wanted: () => boolean): Promise<boolean> {
    this.origin.drop();
    const opened = await this.hooks.openTarget(this.session, target, this.client);
    if (!wanted()) {
      if (opened?.ok) opened.socket.destroy();
      return false;
    }
    if (!opened) this.destroy();
    else if (!opened.ok) {
      this.hooks.targetRefused(opened);
      this.refuse(opened, this.session.parts.proxyUserId);
    } else this.attach(opened.socket, target);
    return opened?.ok === true;
  }

  private startRequest(target: HostPort, request: ForwardRequest): void {
    const ex = newExchange(target, request, this.origin.served);
    this.ex = ex;
    this.asked = null;
    this.ending = null;
    this.m.beginRequestRecord(target, this.session, connectMsSince(this.requestedAt));
    this.phase = 'body';
    this.m.send(UP, ex.head, true);
    if (ex.body.done) this.m.after(UP, () => this.requestSent(ex));
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
    if (n) this.m.send(UP, n === chunk.length ? chunk : chunk.subarray(0, n), true);
    if (n < chunk.length) this.buf = chunk.subarray(n);
    if (ex.body.done) this.m.after(UP, () => this.requestSent(ex));
  }

  private requestSent(ex: Exchange): void {
    if (ex !== this.ex || this.phase !== 'body') return;
    ex.requestDone = true;
    this.phase = 'response';
    if (this.clientEnded) this.origin.socket?.end();
    this.flow();
  }

  private fromTarget(socket: TargetSocket, chunk: Buffer, owned: boolean): void {
    if (socket !== this.origin.socket || this.phase === 'closing') return;
    this.lastIo = coarseClock.now;
    const ex = this.ex;
    // Bytes nobody asked for: that connection is not used again.
    if (!ex || ex.respDone) return this.origin.drop();
    const read = readResponse(ex, chunk, owned, (bytes, own) => this.m.send(DOWN, bytes, own), this.m.recordHeader);
    if (read.kind === 'more') return;
    if (read.kind === 'broken') return this.destroy();
    if (read.kind === 'done') {
      if (read.spoiled) this.origin.spoiled = true;
      this.m.after(DOWN, () => this.responseSent(ex));
      return;
    }
    // A response that cannot be relayed safely: a 502 when the client has none of it yet, else the end.
    if (!ex.respStarted) return this.refuse(read, this.session.parts.proxyUserId);
    this.destroy();
  }

  /** The whole response reached the client's socket: the next request, or the end of the connection. */
  private responseSent(ex: Exchange): void {
    if (ex !== this.ex || this.phase === 'closing') return;
    this.origin.served = true;
    this.m.endRecord('ok');
    // A response before its request's body was all sent: the rest of that body cannot be told from a next request.
    if (!ex.requestDone || ex.close || ex.respClose) return this.finishClient();
    if (this.origin.spoiled) this.origin.drop();
    this.ex = null;
    this.phase = 'head';
    this.nextRequest();
  }

  private attach(socket: TargetSocket, target: HostPort): void {
    this.origin.attach(socket, target);
    this.m.usage = usageTag('http', this.session.parts.location, socket.upstreamId);
    this.m.countSession();
  }

  private targetEnded(socket: TargetSocket): void {
    if (socket !== this.origin.socket || this.phase === 'closing') return;
    const ex = this.ex;
    // A kept connection the origin closed while idle: the next request opens another.
    if (!ex || ex.respDone) return this.origin.drop();
    if (this.mayRetry(ex)) return void this.retry(ex);
    ex.targetEnded = true;
    ex.respBody?.ended();
    if (ex.respBody?.done) {
      ex.respDone = true;
      ex.respClose = true;
      this.m.after(DOWN, () => this.responseSent(ex));
      return;
    }
    // The origin closed before its response was whole: the client gets what came, then the end.
    this.endAs('ok', 'the target closed the connection before its response was complete');
    this.m.after(DOWN, () => this.finishClient());
  }

  private targetClosed(socket: TargetSocket): void {
    if (socket !== this.origin.socket || this.phase === 'closing') return;
    const ex = this.ex;
    if (!ex || ex.respDone) return this.origin.drop();
    if (ex.targetEnded) return;
    if (this.mayRetry(ex)) return void this.retry(ex);
    // An abortive close mid-exchange ends the client connection the same way.
    this.endAs('ok', 'the target closed the connection');
    this.destroy();
  }

  /** A kept connection that closed before any of the answer to a request that may be sent twice. */
  private mayRetry(ex: Exchange): boolean {
    return ex.retryable && !ex.respStarted && ex.respHead.length === 0 && !this.m.up.lease;
  }

  private async retry(ex: Exchange): Promise<void> {
    ex.retryable = false;
    if (!(await this.open(ex.target, () => ex === this.ex && this.phase !== 'closing'))) return;
    this.m.send(UP, ex.head, true);
    this.flow();
  }

  /** Reads from the client unless the origin is held back or enough is read ahead; from the origin unless the client is. */
  flow(): void {
    if (this.closed || this.phase === 'closing') return;
    const { up, down } = this.m;
    const read = this.phase === 'body' ? !up.lease && !up.drain : this.phase === 'head' || this.buf.length < READ_AHEAD_BYTES;
    if (read) this.client.resume();
    else this.client.pause();
    const t = this.origin.socket;
    if (!t) return;
    if (down.lease || down.drain) t.pause();
    else t.resume();
  }

  private readonly clientDrain = (): void => this.m.drained(DOWN);

  touch(): void {
    this.lastIo = coarseClock.now;
  }

  private useSession(session: Session, authorization: string | undefined): void {
    // Another login on the same connection: its location and sticky session pick the exit anew.
    if (this.m.sessionStarted) this.origin.drop();
    this.m.join(session.account);
    this.session = session;
    this.credKey = session.credKey;
    this.authorization = authorization;
    this.m.usage = usageTag('http', session.parts.location);
    this.m.newSession();
  }

  /** The client sent its last request: what it sent is still answered (nextRequest ends the connection after). */
  private readonly clientEnd = (): void => {
    this.clientEnded = true;
    if (this.phase === 'head') return this.nextRequest();
    // Half-close passes through once a request is out (an origin may wait for it to end its answer).
    if (this.phase === 'body' || this.phase === 'response') this.origin.socket?.end();
  };

  private readonly clientClose = (): void => {
    this.endAs('client_closed', 'the client closed the connection');
    this.phase = 'closing';
    this.origin.drop();
    this.done();
  };

  private readonly clientError = (err: Error): void => {
    this.endAs('client_closed', `client connection failed: ${err.message}`);
    this.destroy();
  };

  /** The client socket's listeners: set at start, taken off when a CONNECT hands the connection back. */
  private readonly clientListeners: ReadonlyArray<[string, (arg: Buffer & Error) => void]> = [
    ['data', this.fromClient],
    ['end', this.clientEnd],
    ['close', this.clientClose],
    ['drain', this.clientDrain],
    ['error', this.clientError],
  ];

  private endAs(outcome: ConnectionOutcome, reason: string): void {
    this.ending ??= { outcome, reason };
  }

  /** Ends the client connection once what was written is delivered; what it still sends is dropped. */
  private finishClient(): void {
    if (this.phase === 'closing') return;
    this.phase = 'closing';
    this.origin.drop();
    this.m.cut(() => this.destroy());
  }

  private refuse(r: Refusal, proxyUserId: string | null): void {
    if (this.phase === 'closing') return;
    // Refused after its login: the request's record (its target known), billed what it was sent so far.
    if (this.asked) this.m.beginRequestRecord(this.asked, this.session);
    this.asked = null;
    this.m.endRecord(OUTCOME_OF_REFUSAL[r.kind], r.message);
    this.phase = 'closing';
    this.origin.drop();
    this.hooks.refuse(this.client, r, proxyUserId);
    setTimeout(() => this.destroy(), CUT_DELIVERY_MS).unref();
  }

  /** A CONNECT: the gateway takes the connection back with the bytes from that request on. */
  private handOver(): void {
    const bytes = this.buf;
    this.buf = EMPTY;
    this.phase = 'closing';
    const { client } = this;
    for (const [event, listener] of this.clientListeners) client.off(event, listener);
    client.pause();
    this.origin.drop();
    this.done();
    this.hooks.handOver(client, bytes);
  }

  /** The line of its current login (a rotation of it closes the connection, kept origin and all). */
  get lineToken(): string {
    return this.session.parts.token;
  }

  close(reason: string): void {
    this.endAs(outcomeOfClose(reason), reason);
    this.destroy();
  }

  /** Nothing more is served (a step run from a held queue may have ended it). */
  over(): boolean {
    return this.closed || this.phase === 'closing';
  }

  /** Zero balance or a reached limit: nothing more is relayed, what was paid for is delivered (MeteredFlow.cut). */
  cut(): void {
    if (this.closed || this.phase === 'closing') return;
    this.phase = 'closing';
    this.endAs('cut_off', 'balance empty or limit reached');
    this.m.cut(() => this.destroy());
    this.origin.drop(false);
  }

  destroy(): void {
    this.phase = 'closing';
    this.client.destroy();
    this.origin.drop();
    this.done();
  }

  private done(): void {
    if (this.closed) return;
    this.closed = true;
    // A request still in flight ends with the connection.
    this.m.endRecord(this.ending?.outcome ?? 'client_closed', this.ending?.reason ?? 'the connection ended before the response');
    this.m.leave();
    this.onClose();
  }
}
