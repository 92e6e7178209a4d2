/**
 * The origin connection of one forwarding client connection (http-forward.ts): kept for the next
 * request to the same origin, for this client connection only, so nothing one client sends can
 * reach another's exchange. Its bytes go to the forward's handlers, which ignore a connection that
 * was replaced meanwhile.
 */
import type { TargetSocket } from './egress';
import type { MeteredFlow } from './metered-flow';
import { UP } from './meter';
import type { HostPort } from './protocols/host';

export interface OriginEvents {
  data(socket: TargetSocket, chunk: Buffer, owned: boolean): void;
  ended(socket: TargetSocket): void;
  closed(socket: TargetSocket): void;
}

const keyOf = (t: HostPort) => `${t.host}\0${t.port}`;

export class Origin {
  socket: TargetSocket | null = null;
  private key = '';
  /** It answered a whole response before (a kept connection). */
  served = false;
  /** It sent bytes nobody asked for: it is not used again. */
  spoiled = false;

  constructor(
    /** The flow whose UP bytes go to this connection. */
    private readonly m: MeteredFlow,
    private readonly events: OriginEvents,
  ) {}

  /** Whether the kept connection can carry a request to `target`. */
  fits(target: HostPort): boolean {
    const t = this.socket;
    return t !== null && this.key === keyOf(target) && !t.destroyed && !t.readableEnded && !t.writableEnded;
  }

  attach(socket: TargetSocket, target: HostPort): void {
    this.socket = this.m.target = socket;
    this.key = keyOf(target);
    this.served = false;
    this.spoiled = false;
    const { events } = this;
    socket.on('error', () => socket.destroy());
    socket.on('end', () => events.ended(socket));
    socket.on('close', () => events.closed(socket));
    socket.on('drain', () => {
      if (socket === this.socket) this.m.drained(UP);
    });
    if (socket.sharedReads) {
      // Direct origins read into the shared buffer (shared-reads.ts): whatever is held past this call is copied.
      socket.onSharedRead = (chunk, owned) => events.data(socket, chunk, owned);
      for (const chunk of socket.earlyReads?.splice(0) ?? []) events.data(socket, chunk, true);
    } else {
      socket.on('data', (chunk: Buffer) => events.data(socket, chunk, true));
    }
    socket.resume();
  }

  /** Forgets the connection (`destroy`: and closes it; false after a cut, which ends it once its queue is out). */
  drop(destroy = true): void {
    const t = this.socket;
    if (!t) return;
    this.socket = this.m.target = null;
    this.key = '';
    this.served = false;
    this.spoiled = false;
    this.m.up.drain = false;
    if (destroy) t.destroy();
  }
}
