/** The open tunnels and forwarding connections: each one started from its handshake, and their timeouts. */
import type { Socket } from 'node:net';
import type { Session } from './authenticator';
import type { TargetSocket } from './egress';
import type { FirstRequest } from './http-exchange';
import type { ForwardHooks } from './gateway-parts';
import { HttpForward } from './http-forward';
import type { ProtocolName } from './protocols/answers';
import type { Accepted } from './protocols/handshake';
import { coarseClock } from './metered-flow';
import { Relay } from './relay';
import { usageTag } from './usage-parts';
import { connectionStart } from './connection-log/record';

/** What the sweeper watches: the last byte moved, and (forwarding) a request head being read. */
interface Open {
  lastIo: number;
  headSince?: number;
  close(reason: string): void;
}

export class Tunnels {
  private readonly open = new Set<Open>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    readonly idleTimeoutMs: number,
    /** A keep-alive client has this long to send a request head once it started one. */
    private readonly headTimeoutMs: number,
  ) {
    // One sweeper for every tunnel's idle timeout, instead of two timers per tunnel.
    this.sweeper = setInterval(() => this.sweepIdle(), Math.min(5000, Math.max(100, Math.min(idleTimeoutMs, headTimeoutMs) / 4)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.open.size;
  }

  /** `protocol`: the handshake's (a SOCKS5 or an HTTP client): a CONNECT or SOCKS5 tunnel. */
  start(client: Socket, target: Socket, { session, leftover, target: asked }: Accepted<Session>, protocol: ProtocolName, seq: number, connectMs: number): void {
    const kind = protocol === 'socks5' ? 'socks5' : 'connect';
    const usage = usageTag(kind, session.parts.location, (target as TargetSocket).upstreamId);
    const initialUp = leftover.length ? leftover : undefined;
    const record = connectionStart(kind, asked, session, 0, 0, seq, connectMs);
    const relay = new Relay(client, target, session.account, session.credKey, {
      initialUp,
      usage,
      record,
      lineTest: session.lineTest,
      lineToken: session.parts.token,
      onClose: () => this.open.delete(relay),
    });
    this.open.add(relay);
    relay.start();
  }

  /** An HTTP client's forwarded requests, its first one opened. */
  forward(client: Socket, first: FirstRequest, hooks: ForwardHooks): void {
    const f = new HttpForward(client, first, hooks, () => this.open.delete(f));
    this.open.add(f);
    f.start();
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  private sweepIdle(): void {
    const now = coarseClock.now;
    const cutoff = now - this.idleTimeoutMs;
    const headCutoff = now - this.headTimeoutMs;
    for (const r of this.open) {
      if (r.lastIo < cutoff) r.close('idle timeout');
      else if (r.headSince && r.headSince < headCutoff) r.close('request head timeout');
    }
  }
}
