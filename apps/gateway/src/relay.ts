/**
 * The data path of a tunnel. Each direction is one 'data' listener that hands its chunks to the
 * metered flow (metered-flow.ts: counting, leases, the cut); the source pauses while the
 * destination's buffer is full (backpressure) or while a lease is being reserved. Direct targets and clients read into one shared buffer
 * (shared-reads.ts): no per-chunk allocation, no Transform streams.
 * Half-close passes through ('end' ends the other side); an error or an abortive close on either
 * side destroys both; idle sockets time out.
 * A tunnel outlives a server outage: out of lease and unable to reach the server, it holds its
 * source and asks again until the server answers. At zero balance it is cut: nothing more is
 * relayed, and what was already written (and paid for) is delivered before it closes.
 */
import type { Socket } from 'node:net';
import type { ConnectionOutcome } from '@proxyhub/core';
import { outcomeOfClose, type RecordStart } from './connection-log/record';
import type { TargetSocket } from './egress';
import { DOWN, UP, type Account, type MeteredConnection } from './meter';
import { coarseClock, MeteredFlow, type FlowOwner } from './metered-flow';
import { readIntoShared, type SharedReadSocket } from './shared-reads';
import type { UsageTag } from './usage-parts';

export interface RelayOptions {
  /** Bytes to send to the target first (early tunnel data). */
  initialUp?: Buffer | undefined;
  onClose?: () => void;
  /** Where the bytes go and how they came in, for the usage history. */
  usage: UsageTag;
  /** The connection log's record, ended with the tunnel. */
  record?: RecordStart | undefined;
  /** The server's signed line test: nothing is spent or counted, and the tunnel lasts LINE_TEST_TUNNEL_MS at most. */
  lineTest?: boolean | undefined;
  /** The token of the line it serves (a rotation of the line closes it). */
  lineToken?: string | undefined;
}

/** A line test fetches one small page in at most 10 s: its unbilled tunnel is closed after this. */
export const LINE_TEST_TUNNEL_MS = 15_000;

export class Relay implements MeteredConnection, FlowOwner {
  /** Last time a byte moved either way (coarse clock); the gateway's sweeper closes idle relays. */
  lastIo = coarseClock.now;
  readonly remote: string | undefined;
  private closed = false;
  private cutting = false;
  /** How the tunnel ends, decided by the first thing that ends it (the connection log's outcome). */
  private ending: { outcome: ConnectionOutcome; reason: string } | null = null;
  private readonly m: MeteredFlow;
  readonly lineTest: boolean;
  readonly lineToken: string | undefined;

  constructor(
    readonly client: Socket,
    readonly target: Socket,
    account: Account,
    readonly credKey: string,
    private readonly opts: RelayOptions,
  ) {
    this.remote = client.remoteAddress;
    this.lineTest = opts.lineTest === true;
    this.lineToken = opts.lineToken;
    this.m = new MeteredFlow(this, client, account, opts.usage, this.lineTest);
    this.m.target = target;
    if (opts.record) this.m.beginRecord(opts.record);
  }

  private endAs(outcome: ConnectionOutcome, reason: string): void {
    this.ending ??= { outcome, reason };
  }

  get stats(): { up: number; down: number } {
    return this.m.stats;
  }

  start(): void {
    const { client, target, m } = this;
    m.join(m.account);
    if (this.lineTest) setTimeout(() => this.close('line test over'), LINE_TEST_TUNNEL_MS).unref();
    else m.countSession();
    client.on('error', (err: Error) => {
      this.endAs('client_closed', `client connection failed: ${err.message}`);
      this.destroy();
    });
    target.on('error', (err: Error) => {
      this.endAs('ok', `target connection failed: ${err.message}`);
      this.destroy();
    });
    // An abortive close (no EOF read) on one side ends the other; a graceful one already ended it.
    client.on('close', () => {
      if (!client.readableEnded) {
        this.endAs('client_closed', 'the client closed the connection');
        target.destroy();
      }
      this.finish();
    });
    target.on('close', () => {
      // After a cut the client is still being given what it paid for: it closes on its own.
      if (!target.readableEnded && !this.cutting) {
        this.endAs('ok', 'the target closed the connection');
        client.destroy();
      }
      this.finish();
    });
    if ((target as TargetSocket).sharedReads) this.readShared(target, client, DOWN);
    else this.pipe(target, client, DOWN);
    const initialUp = this.opts.initialUp;
    this.opts.initialUp = undefined; // an idle tunnel does not keep its handshake's read buffer
    if (readIntoShared(client)) {
      this.readShared(client, target, UP, initialUp);
    } else {
      this.pipe(client, target, UP);
      if (initialUp?.length) this.forward(UP, initialUp, true);
    }
    this.flow();
    // A side that closed before the relay began (while the TLS server name was read) sends no 'close' now.
    if (client.destroyed || target.destroyed) this.destroy();
  }

  private pipe(src: Socket, dst: Socket, dir: number): void {
    src.on('data', (chunk: Buffer) => this.forward(dir, chunk, true));
    this.watch(src, dst, dir);
  }

  /** Reads into the shared buffer (shared-reads.ts): same flow as pipe(), no 'data' events. */
  private readShared(src: SharedReadSocket, dst: Socket, dir: number, first?: Buffer): void {
    src.onSharedRead = (chunk, owned) => this.forward(dir, chunk, owned);
    this.watch(src, dst, dir);
    // What came before the relay, in order, as one chunk (one lease check, nothing reordered).
    const early = src.earlyReads?.splice(0) ?? [];
    if (first?.length) early.unshift(first);
    if (early.length) this.forward(dir, early.length === 1 ? early[0]! : Buffer.concat(early), true);
  }

  private watch(src: Socket, dst: Socket, dir: number): void {
    dst.on('drain', () => this.m.drained(dir));
    src.on('end', () => {
      if (!dst.destroyed) dst.end();
    });
  }

  /** `owned`: false when the chunk lives in a read buffer that will be reused (copied if held). */
  private forward(dir: number, chunk: Buffer, owned: boolean): void {
    if (this.cutting) return;
    this.lastIo = coarseClock.now;
    this.m.send(dir, chunk, owned);
  }

  /** Each source reads unless its direction waits for a lease or for its destination to drain. */
  flow(): void {
    if (this.cutting || this.closed) return;
    const { up, down } = this.m;
    if (up.lease || up.drain) this.client.pause();
    else this.client.resume();
    if (down.lease || down.drain) this.target.pause();
    else this.target.resume();
  }

  over(): boolean {
    return this.closed || this.cutting || this.client.destroyed || this.target.destroyed;
  }

  touch(): void {
    this.lastIo = coarseClock.now;
  }

  close(reason: string): void {
    this.endAs(outcomeOfClose(reason), reason);
    this.destroy();
  }

  /** Zero balance or a reached limit: nothing more is relayed, what was paid for is delivered (MeteredFlow.cut). */
  cut(): void {
    if (this.cutting || this.closed) return;
    this.cutting = true;
    this.endAs('cut_off', 'balance empty or limit reached');
    this.m.cut(() => this.destroy());
  }

  destroy(): void {
    this.client.destroy();
    this.target.destroy();
    this.finish();
  }

  private finish(): void {
    // After a graceful close of one side the other may still be flushing: done when both are gone.
    if (this.closed || !this.client.destroyed || !this.target.destroyed) return;
    this.closed = true;
    this.m.endRecord(this.ending?.outcome ?? 'ok', this.ending?.reason ?? '');
    this.m.leave();
    this.opts.onClose?.();
  }
}
