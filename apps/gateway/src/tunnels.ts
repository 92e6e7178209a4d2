/** The open tunnels: each one's relay, started from its handshake, and their idle timeout. */
import type { Socket } from 'node:net';
import type { Session } from './authenticator';
import type { TargetSocket } from './egress';
import type { ProtocolName } from './protocols/answers';
import type { Accepted } from './protocols/handshake';
import { coarseClock, Relay } from './relay';
import { usageTag } from './usage-parts';

export class Tunnels {
  private readonly relays = new Set<Relay>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly idleTimeoutMs: number) {
    // One sweeper for every tunnel's idle timeout, instead of two timers per tunnel.
    this.sweeper = setInterval(() => this.sweepIdle(), Math.min(5000, Math.max(100, idleTimeoutMs / 4)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.relays.size;
  }

  /** `protocol`: the handshake's (a SOCKS5 or an HTTP client); a forwarded request is plain HTTP, else a CONNECT tunnel. */
  start(client: Socket, target: Socket, { session, leftover, forward }: Accepted<Session>, protocol: ProtocolName): void {
    let initialUp = leftover;
    let upLimit: number | undefined;
    if (forward) {
      // A forwarded request: the rewritten head, then its body and nothing beyond it.
      initialUp = Buffer.concat([forward.head, leftover.length > forward.bodyLength ? leftover.subarray(0, forward.bodyLength) : leftover]);
      upLimit = forward.head.length + forward.bodyLength;
    }
    const usage = usageTag(protocol === 'socks5' ? 'socks5' : forward ? 'http' : 'connect', session.parts.location, (target as TargetSocket).upstreamId);
    session.account.countSession(usage);
    const relay = new Relay(client, target, session.account, session.credKey, { initialUp, upLimit, usage, onClose: () => this.relays.delete(relay) });
    this.relays.add(relay);
    relay.start();
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  private sweepIdle(): void {
    const cutoff = coarseClock.now - this.idleTimeoutMs;
    for (const r of this.relays) if (r.lastIo < cutoff) r.close('idle timeout');
  }
}
