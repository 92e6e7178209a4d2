/**
 * The data path. Each direction is one 'data' listener that counts, spends from the account's
 * leases and writes; the source pauses while the destination's buffer is full (backpressure) or
 * while a lease is being reserved. Direct targets and clients read into one shared buffer
 * (shared-reads.ts): no per-chunk allocation, no Transform streams.
 * Half-close passes through ('end' ends the other side); an error or an abortive close on either
 * side destroys both; idle sockets time out.
 * A tunnel outlives a server outage: out of lease and unable to reach the server, it holds its
 * source and asks again until the server answers. At zero balance it is cut: nothing more is
 * relayed, and what was already written (and paid for) is delivered before it closes.
 */
import type { Socket } from 'node:net';
import type { TargetSocket } from './egress';
import { DOWN, UP, type Account, type MeteredConnection } from './meter';
import { readIntoShared, writeChunk, type SharedReadSocket } from './shared-reads';
import type { UsageTag } from './usage-parts';

/** What one direction may hold in user space before its source pauses (backpressure). */
export const RELAY_BUFFER_BYTES = 128 * 1024;
/** After a cut, how long a client has to take the bytes it paid for before the tunnel is destroyed. */
export const CUT_DELIVERY_MS = 10_000;

/**
 * A coarse clock for idle tracking: reading it per chunk costs nothing, unlike a socket timeout
 * (a timer per socket, refreshed on every read and write).
 */
export const coarseClock = { now: Date.now() };
setInterval(() => {
  coarseClock.now = Date.now();
}, 250).unref();

export interface RelayOptions {
  /** Bytes to send to the target first (early tunnel data). */
  initialUp?: Buffer | undefined;
  onClose?: () => void;
  /** Where the bytes go and how they came in, for the usage history. */
  usage?: UsageTag;
}

export interface RelayStats {
  up: number;
  down: number;
}

export class Relay implements MeteredConnection {
  readonly stats: RelayStats = { up: 0, down: 0 };
  /** Last time a byte moved either way (coarse clock); the gateway's sweeper closes idle relays. */
  lastIo = coarseClock.now;
  readonly remote: string | undefined;
  private closed = false;
  private cutting = false;
  private readonly upState: FlowState = { drain: false, lease: false };
  private readonly downState: FlowState = { drain: false, lease: false };

  constructor(
    readonly client: Socket,
    readonly target: Socket,
    readonly account: Account,
    readonly credKey: string,
    private readonly opts: RelayOptions,
  ) {
    this.remote = client.remoteAddress;
  }

  start(): void {
    const { client, target, account } = this;
    account.conns.add(this);
    const teardown = () => this.destroy();
    client.on('error', teardown);
    target.on('error', teardown);
    // An abortive close (no EOF read) on one side ends the other; a graceful one already ended it.
    client.on('close', () => {
      if (!client.readableEnded) target.destroy();
      this.finish();
    });
    target.on('close', () => {
      // After a cut the client is still being given what it paid for: it closes on its own.
      if (!target.readableEnded && !this.cutting) client.destroy();
      this.finish();
    });
    if ((target as TargetSocket).sharedReads) this.readShared(target, client, DOWN, this.downState);
    else this.pipe(target, client, DOWN, this.downState);
    const initialUp = this.opts.initialUp;
    this.opts.initialUp = undefined; // an idle tunnel does not keep its handshake's read buffer
    if (readIntoShared(client)) {
      this.readShared(client, target, UP, this.upState, initialUp);
    } else {
      this.pipe(client, target, UP, this.upState);
      if (initialUp?.length) this.forward(client, target, UP, initialUp, this.upState);
    }
    if (!this.upState.lease && !this.upState.drain) client.resume();
    target.resume();
  }

  private pipe(src: Socket, dst: Socket, dir: number, state: FlowState): void {
    src.on('data', (chunk: Buffer) => this.forward(src, dst, dir, chunk, state));
    this.watch(src, dst, state);
  }

  /** Reads into the shared buffer (shared-reads.ts): same flow as pipe(), no 'data' events. */
  private readShared(src: SharedReadSocket, dst: Socket, dir: number, state: FlowState, first?: Buffer): void {
    src.onSharedRead = (chunk, owned) => this.forward(src, dst, dir, chunk, state, owned);
    this.watch(src, dst, state);
    // What came before the relay, in order, as one chunk (one lease check, nothing reordered).
    const early = src.earlyReads?.splice(0) ?? [];
    if (first?.length) early.unshift(first);
    if (early.length) this.forward(src, dst, dir, early.length === 1 ? early[0]! : Buffer.concat(early), state);
  }

  private watch(src: Socket, dst: Socket, state: FlowState): void {
    dst.on('drain', () => {
      if (!state.drain) return;
      state.drain = false;
      if (!state.lease) src.resume();
    });
    src.on('end', () => {
      if (!dst.destroyed) dst.end();
    });
  }

  /** `owned`: false when the chunk lives in a read buffer that will be reused (copied if held). */
  private forward(src: Socket, dst: Socket, dir: number, chunk: Buffer, state: FlowState, owned = true): void {
    const n = chunk.length;
    if (n === 0 || this.cutting) return;
    this.lastIo = coarseClock.now;
    const acc = this.account;
    if (acc.available >= n) {
      this.spend(n, dir);
      // Pause only when the destination really holds data back: a write that went straight to the
      // kernel still returns false for a chunk above the 16 KiB mark, and pausing on that costs a
      // pause/resume per chunk for nothing.
      if (!writeChunk(dst, chunk, owned) && dst.writableLength > RELAY_BUFFER_BYTES) {
        state.drain = true;
        src.pause();
      }
      return;
    }
    // Out of lease: hold the chunk (and the source) until the next lease, or close at zero.
    if (!owned) chunk = Buffer.from(chunk);
    state.lease = true;
    src.pause();
    this.awaitLease(src, dst, dir, chunk, state);
  }

  private spend(n: number, dir: number): void {
    this.account.spend(n, dir, this.opts.usage);
    if (dir === UP) this.stats.up += n;
    else this.stats.down += n;
  }

  private awaitLease(src: Socket, dst: Socket, dir: number, chunk: Buffer, state: FlowState): void {
    const acc = this.account;
    const n = chunk.length;
    acc.whenAvailable(n, (r) => {
      if (this.closed || this.cutting || dst.destroyed) return;
      if (r === 'error') {
        // The server is unreachable: the tunnel stays open, paused, until a lease comes through
        // (waiting with data in hand is not idling: the idle sweeper leaves it alone).
        this.lastIo = coarseClock.now;
        setTimeout(() => this.awaitLease(src, dst, dir, chunk, state), Math.max(50, acc.retryAt - Date.now())).unref();
        return;
      }
      const avail = acc.available;
      state.lease = false;
      if (r === 'granted') {
        this.spend(n, dir);
        if (!dst.write(chunk) && dst.writableLength > RELAY_BUFFER_BYTES) state.drain = true;
        else if (!state.drain) src.resume();
        return;
      }
      // What is left of the balance is sent, nothing beyond it.
      if (avail > 0) {
        this.spend(avail, dir);
        dst.write(chunk.subarray(0, avail));
      }
      if (r === 'disabled') acc.closeAll('account disabled');
      else acc.cutOff();
    });
  }

  close(_reason: string): void {
    this.destroy();
  }

  /**
   * Balance empty. Bytes are billed when written to a socket, so the bytes still queued for the
   * client are delivered rather than dropped at close (billing undelivered bytes): nothing more
   * is relayed, the client gets its queue and an end, and the tunnel closes when the client hangs
   * up (or after CUT_DELIVERY_MS). What either side still sends is read and dropped, so the close
   * never turns into a reset that would throw the queue away.
   */
  cut(): void {
    if (this.cutting || this.closed) return;
    this.cutting = true;
    const { client, target } = this;
    if (target.writableLength === 0) target.destroy();
    else {
      target.end();
      target.once('finish', () => target.destroy());
    }
    client.end();
    client.resume();
    setTimeout(() => this.destroy(), CUT_DELIVERY_MS).unref();
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
    this.account.conns.delete(this);
    this.account.lastActivity = Date.now();
    this.opts.onClose?.();
  }
}

interface FlowState {
  drain: boolean;
  lease: boolean;
}
