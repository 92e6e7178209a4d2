/**
 * Metering on the data path, for tunnels (relay.ts) and forwarded HTTP (http-forward.ts) alike:
 * every byte is spent from the account's leases before it is written, counted per direction, held
 * (in order, with its source paused) while a lease is being reserved, and at zero balance or a
 * reached limit the connection is cut: nothing more is relayed, and what was already written (and
 * paid for) is delivered before it closes. A connection log or a new limit belongs here, once.
 *
 * The hot path is `send`: a chunk the leases cover is spent and written in the same call, with
 * no allocation (a shared read buffer's chunk is written as is: shared-reads.ts).
 */
import type { Socket } from 'node:net';
import type { ConnectionOutcome } from '@proxyhub/core';
import type { Session } from './authenticator';
import { connectionHeaderId, connectionStart, type RecordStart } from './connection-log/record';
import type { TargetSocket } from './egress';
import { DOWN, UP, type Account, type MeteredConnection } from './meter';
import { refusal, type Refusal } from './protocols/handshake';
import { CONNECTION_HEADER } from './protocols/http';
import type { HostPort } from './protocols/host';
import { writeChunk } from './shared-reads';
import type { UsageTag } from './usage-parts';

/** What one direction may hold in user space before its source pauses (backpressure). */
export const RELAY_BUFFER_BYTES = 128 * 1024;
/** After a cut, how long a client has to take the bytes it paid for before the connection is destroyed. */
export const CUT_DELIVERY_MS = 10_000;

export const BALANCE_EMPTY_MESSAGE = 'Your proxy balance is empty: top up your credits to continue.';
/** The proxy account's own limit (or its batch's) is used up while the wallet may hold more: a top-up would not help. */
export const CAP_REACHED_MESSAGE = 'Proxy account limit reached';
export const EXPIRED_MESSAGE = 'Proxy account expired';
export const TOO_MANY_CONNECTIONS_MESSAGE = 'Too many connections for this proxy account';
const EMPTY_HEADER = Buffer.alloc(0);

/**
 * A coarse clock for idle tracking: reading it per chunk costs nothing, unlike a socket timeout
 * (a timer per socket, refreshed on every read and write).
 */
export const coarseClock = { now: Date.now() };
setInterval(() => {
  coarseClock.now = Date.now();
}, 250).unref();

/** Null when the account holds lease bytes (reserving one first if needed); else why nothing may be relayed. */
export async function leaseRefusal(acc: Account): Promise<Refusal | null> {
  if (acc.available > 0) return null;
  const r = await acc.ensure(1);
  if (r === 'empty') return refusal('empty', BALANCE_EMPTY_MESSAGE);
  if (r === 'cap_reached') return refusal('cap_reached', CAP_REACHED_MESSAGE);
  if (r === 'disabled') return refusal('disabled', 'This proxy account is disabled');
  if (r === 'expired') return refusal('expired', EXPIRED_MESSAGE);
  if (r === 'error') return refusal('unavailable', 'Proxy metering is temporarily unavailable, try again');
  return null;
}

/** One direction: paused for a lease (chunks and follow-up steps held, in order) or for a full buffer. */
export interface Direction {
  lease: boolean;
  drain: boolean;
  held: Array<Buffer | (() => void)>;
}

/** What the connection that owns a flow decides itself. */
export interface FlowOwner extends MeteredConnection {
  /** The lease or drain state of a direction changed: pause or resume the sources. */
  flow(): void;
  /** Nothing more is served: held chunks and steps are dropped. */
  over(): boolean;
  /** Waiting with data in hand for an unreachable server is not idling. */
  touch(): void;
}

export class MeteredFlow {
  readonly up: Direction = { lease: false, drain: false, held: [] };
  readonly down: Direction = { lease: false, drain: false, held: [] };
  /** Bytes written each way. */
  readonly stats = { up: 0, down: 0 };
  /** Where UP bytes go (null: no origin connection yet) and where DOWN bytes go. */
  target: TargetSocket | null = null;
  private sessionCounted = false;
  /** The connection (or forwarded request) being recorded for the connection log. */
  private record: RecordStart | null = null;

  constructor(
    private readonly owner: FlowOwner,
    readonly client: Socket,
    public account: Account,
    /** Where the bytes go and how they came in, for the usage history. */
    public usage: UsageTag,
    /** The server's signed line test: bytes are relayed and counted for its record, never spent. */
    private readonly unbilled = false,
  ) {}

  /** Counts the connection as its account's (revocation and a cut reach it through the account). */
  join(account: Account): void {
    if (account !== this.account || !this.account.conns.has(this.owner)) {
      this.account.conns.delete(this.owner);
      account.conns.add(this.owner);
    }
    this.account = account;
  }

  leave(): void {
    this.account.conns.delete(this.owner);
    this.account.lastActivity = Date.now();
  }

  /** One session per login of the connection, counted once its target is known (newSession: another login). */
  countSession(): void {
    if (this.sessionCounted) return;
    this.sessionCounted = true;
    this.account.countSession(this.usage);
  }

  get sessionStarted(): boolean {
    return this.sessionCounted;
  }

  newSession(): void {
    this.sessionCounted = false;
  }

  /** A connection or forwarded request starts: its record is built at endRecord, from the bytes counted since. */
  beginRecord(start: RecordStart): void {
    this.record = start;
    this.egressOf(start);
  }

  /** Where the connection left (its exit address, its pool upstream), once its target is connected. */
  private egressOf(start: RecordStart): void {
    const t = this.target;
    if (!t) return;
    if (t.exitIp && !start.exitIp) start.exitIp = t.exitIp;
    if (t.upstreamId && !start.upstreamId) start.upstreamId = t.upstreamId;
  }

  /**
   * The header line naming the open record's id (X-ProxyHub-Connection) for a response's head (empty
   * when none is open), written to the client in order with what was sent before it and never
   * billed or counted: the customer pays for the origin's bytes, not for ours.
   */
  readonly recordHeader = {
    line: (): Buffer => {
      const seq = this.record?.seq;
      return seq === undefined ? EMPTY_HEADER : Buffer.from(`${CONNECTION_HEADER}: ${connectionHeaderId(seq)}\r\n`, 'latin1');
    },
    /** The response head `before` + ours + `rest`: one write when its bytes are covered (ours not spent or counted), else in order as three. */
    sendWith: (before: Buffer, ours: Buffer, rest: Buffer): void => {
      if (this.down.lease || (!this.unbilled && this.account.available < before.length + rest.length)) {
        this.send(DOWN, before, true);
        this.after(DOWN, () => {
          if (!this.client.destroyed) this.client.write(ours);
        });
        this.send(DOWN, rest, true);
        return;
      }
      // One socket write per head: two more writes a response cost a third of a forward's rate (pnpm bench:gateway).
      this.write(DOWN, Buffer.concat([before, ours, rest]), true, ours.length);
    },
  };

  /** A forwarded request's record, unless one is open already: its bytes counted from the flow's so far; connectMs null when it reached no origin. */
  beginRequestRecord(target: HostPort, session: Session, connectMs: number | null = null): void {
    if (!this.record) this.beginRecord(connectionStart('http', target, session, this.stats.up, this.stats.down, undefined, connectMs));
  }

  /** The connection or request ended this way: its record goes to the meter (once). */
  endRecord(outcome: ConnectionOutcome, reason = ''): void {
    const s = this.record;
    if (!s) return;
    this.record = null;
    // A forwarded request's record begins before its first origin connects.
    this.egressOf(s);
    s.session.account.meter.records?.add(s, this.stats.up - s.baseUp, this.stats.down - s.baseDown, outcome, reason);
  }

  /** Spends and writes `chunk` (to the target for UP, the client for DOWN), or holds it for a lease. `owned` false: it lives in a shared read buffer. */
  send(dir: number, chunk: Buffer, owned: boolean): void {
    const d = dir === UP ? this.up : this.down;
    if (d.lease) {
      d.held.push(owned ? chunk : Buffer.from(chunk));
      return;
    }
    if (this.unbilled || this.account.available >= chunk.length) {
      this.write(dir, chunk, owned);
      return;
    }
    d.lease = true;
    d.held.push(owned ? chunk : Buffer.from(chunk));
    this.owner.flow();
    this.awaitLease(d, dir);
  }

  /** Runs `step` once everything sent in that direction so far has been written. */
  after(dir: number, step: () => void): void {
    const d = dir === UP ? this.up : this.down;
    if (d.lease) d.held.push(step);
    else step();
  }

  /** The destination of a direction took its buffer: its source may read again. */
  drained(dir: number): void {
    const d = dir === UP ? this.up : this.down;
    if (!d.drain) return;
    d.drain = false;
    this.owner.flow();
  }

  /** `ours`: bytes of the chunk that are the gateway's own (a header line it adds), neither spent nor counted. */
  private write(dir: number, chunk: Buffer, owned = true, ours = 0): void {
    const dst = dir === UP ? this.target : this.client;
    if (!dst || dst.destroyed || chunk.length === 0) return;
    const n = chunk.length - ours;
    if (!this.unbilled) this.account.spend(n, dir, this.usage);
    if (dir === UP) this.stats.up += n;
    else this.stats.down += n;
    // Pause only when the destination really holds data back: a write that went straight to the
    // kernel still returns false for a chunk above the 16 KiB mark, and pausing on that costs a
    // pause/resume per chunk for nothing.
    if (!writeChunk(dst, chunk, owned) && dst.writableLength > RELAY_BUFFER_BYTES) {
      (dir === UP ? this.up : this.down).drain = true;
      this.owner.flow();
    }
  }

  private awaitLease(d: Direction, dir: number): void {
    const acc = this.account;
    const first = d.held[0] as Buffer;
    acc.whenAvailable(first.length, (r) => {
      if (this.owner.over()) return;
      if (r === 'error') {
        // The server is unreachable: wait with the data in hand (not idling) until a lease comes.
        this.owner.touch();
        setTimeout(() => this.awaitLease(d, dir), Math.max(50, acc.retryAt - Date.now())).unref();
        return;
      }
      // Called in the turn the first held chunk's bytes are there: later chunks may need another lease.
      while (d.held.length) {
        const item = d.held[0]!;
        if (typeof item === 'function') {
          d.held.shift();
          item();
          if (this.owner.over()) return;
          continue;
        }
        if (acc.available >= item.length) {
          d.held.shift();
          this.write(dir, item);
          continue;
        }
        if (r === 'granted') return this.awaitLease(d, dir);
        // What is left of the balance is sent, nothing beyond it.
        if (acc.available > 0) this.write(dir, item.subarray(0, acc.available));
        if (r === 'disabled' || r === 'expired') acc.closeAll(r === 'expired' ? 'account expired' : 'account disabled');
        else acc.cutOff();
        return;
      }
      d.lease = false;
      this.owner.flow();
    });
  }

  /**
   * The cut. Bytes are billed when written to a socket, so the bytes still queued for the client
   * are delivered rather than dropped at close (billing undelivered bytes): the target is ended
   * once its queue is out, the client gets its queue and an end, and `destroy` runs when the client
   * hangs up or after CUT_DELIVERY_MS. What the client still sends is read and dropped, so the
   * close never turns into a reset that would throw the queue away.
   */
  cut(destroy: () => void): void {
    const t = this.target;
    if (t) {
      if (t.writableLength === 0) t.destroy();
      else {
        t.end();
        t.once('finish', () => t.destroy());
      }
    }
    this.client.end();
    this.client.resume();
    setTimeout(destroy, CUT_DELIVERY_MS).unref();
  }
}
