/**
 * The target policy on a tunnel's first request: a TLS server name (SNI), or an HTTP request's
 * Host. A tunnel opened to an allowed address must not carry a ClientHello or a request for a
 * blocked name (one CDN address serves many names), so before the relay starts, the client's first
 * bytes are read: anything that is neither a TLS handshake record nor an HTTP request line is
 * relayed at once; a ClientHello or request head is read whole and its names checked, and a blocked
 * one closes the tunnel before anything reaches the target. However late those bytes come they are
 * read (waiting is no pass): only a target that speaks first (SMTP, SSH) ends the wait unread. A
 * silent client is closed by the idle timeout, one that starts a hello or head and stops by the
 * handshake deadline, and one that cannot be read is closed too: otherwise delaying, splitting or
 * mangling it would hide the name. Bounded: one hello (MAX_CLIENT_HELLO_BYTES) or head
 * (MAX_HEAD_BYTES). The same read serves the account's own target rules (target-rules.ts). The
 * gateway skips all this when neither the policy (for a user not exempt) nor the account's rules
 * could refuse a name.
 */
import type { Socket } from 'node:net';
import type { Session } from './authenticator';
import { recordUnrelayed } from './connection-log/record';
import type { TargetSocket } from './egress';
import type { Logger } from './log';
import type { GatewayMetrics } from './metrics';
import type { ProtocolName } from './protocols/answers';
import type { Accepted } from './protocols/handshake';
import { peekHttpRequest } from './protocols/first-request';
import { peekClientHello } from './protocols/tls-sni';
import type { TargetJudge } from './target-policy';
import type { Tunnels } from './tunnels';

/** A handshake done and its target connected: what the relay starts from. */
/**
 * `seq`: the connection's number in this run, its record's id (its CONNECT answer named it);
 * `connectMs`: from the client's request to the target (or upstream) accepting.
 */
export type Opened = { accepted: Accepted<Session>; target: TargetSocket; protocol: ProtocolName; seq: number; connectMs: number };

/** What the check waits for: nothing from the client for `idleMs` (the tunnels' idle timeout) ends the tunnel; a first request begun must be whole within `headMs` (the handshake deadline). */
export interface SniTimeouts {
  idleMs: number;
  headMs: number;
}

export type SniVerdict = { pass: true; first: Buffer } | { pass: false; outcome: 'blocked' | 'client_closed' | 'timeout'; reason: string };

type Why = 'read' | 'target' | 'idle' | 'head_timeout' | 'client_gone';

/** What a tunnel's first client bytes say so far: a ClientHello's server name, or an HTTP request's targets. */
type FirstBytes = { state: 'other' } | { state: 'more' } | { state: 'named'; names: string[]; what: string } | { state: 'unreadable'; what: string };

function peekFirstBytes(buf: Buffer): FirstBytes {
  const tls = peekClientHello(buf);
  switch (tls.state) {
    case 'hello':
      return { state: 'named', names: tls.sni ? [tls.sni] : [], what: 'TLS server name' };
    case 'unreadable':
      return { state: 'unreadable', what: 'TLS ClientHello' };
    case 'more':
      return tls;
    case 'other':
      break;
  }
  const http = peekHttpRequest(buf);
  switch (http.state) {
    case 'request':
      return { state: 'named', names: http.hosts, what: 'HTTP request for' };
    case 'unreadable':
      return { state: 'unreadable', what: 'HTTP request head' };
    default:
      return http;
  }
}

function verdict(peek: FirstBytes, why: Why, first: Buffer, judge: TargetJudge, t: SniTimeouts): SniVerdict {
  const pass: SniVerdict = { pass: true, first };
  const blocked = (reason: string): SniVerdict => ({ pass: false, outcome: 'blocked', reason });
  switch (peek.state) {
    case 'other':
      return pass;
    case 'named': {
      for (const name of peek.names) {
        const text = judge.refuses(name);
        if (text !== null) return blocked(`${text} (${peek.what} ${name})`);
      }
      return pass;
    }
    case 'unreadable':
      return blocked(`${judge.message} (unreadable ${peek.what})`);
    case 'more':
      switch (why) {
        case 'client_gone':
          return { pass: false, outcome: 'client_closed', reason: 'the client closed the connection' };
        // The target spoke first (SMTP, SSH): not a TLS or HTTP client, as today.
        case 'target':
          return pass;
        case 'idle':
          return { pass: false, outcome: 'timeout', reason: 'idle timeout' };
        default:
          return blocked(`${judge.message} (TLS ClientHello or HTTP request head not complete within ${t.headMs} ms)`);
      }
  }
}

/** Calls `speaks` once the target sends a byte or closes; returns the undo. What it read stays for the relay. */
function whenTargetSpeaks(target: TargetSocket, speaks: () => void): () => void {
  target.once('close', speaks);
  if (target.sharedReads) {
    target.onSharedRead = (chunk, owned) => {
      (target.earlyReads ??= []).push(owned ? chunk : Buffer.from(chunk));
      speaks();
    };
    target.resume();
    return () => {
      target.off('close', speaks);
      target.onSharedRead = null;
      target.pause();
    };
  }
  const onData = (chunk: Buffer) => {
    target.pause();
    target.unshift(chunk);
    speaks();
  };
  target.on('data', onData);
  target.resume();
  return () => {
    target.off('close', speaks);
    target.off('data', onData);
    target.pause();
  };
}

/**
 * Reads the client's first bytes (after `leftover`, what came with the handshake) until they show
 * what they are, however late they come: there is no time after which they pass unread. Only the
 * target speaking first, the idle timeout (nothing from the client at all) or the head deadline
 * (a hello or request head begun and not finished) ends the wait. `first` is everything read, for
 * the relay to send first. Both sockets are left paused.
 */
export function checkTunnelSni(client: Socket, target: TargetSocket, leftover: Buffer, judge: TargetJudge, t: SniTimeouts): Promise<SniVerdict> {
  const now = peekFirstBytes(leftover);
  if (now.state !== 'more') return Promise.resolve(verdict(now, 'read', leftover, judge, t));
  if (client.destroyed) return Promise.resolve(verdict(now, 'client_gone', leftover, judge, t));
  if ((target.earlyReads?.length ?? 0) > 0 || target.readableLength > 0 || target.destroyed) return Promise.resolve(verdict(now, 'target', leftover, judge, t));
  return new Promise((resolve) => {
    let bytes = leftover;
    let done = false;
    // Silence is the idle timeout's business; a begun hello or head has the handshake's deadline.
    const headTimer = () => setTimeout(() => finish('head_timeout'), t.headMs);
    let timer = bytes.length ? headTimer() : setTimeout(() => finish('idle'), t.idleMs);
    const onData = (chunk: Buffer) => {
      if (!bytes.length) {
        clearTimeout(timer);
        timer = headTimer();
      }
      bytes = bytes.length ? Buffer.concat([bytes, chunk]) : chunk;
      if (peekFirstBytes(bytes).state !== 'more') finish('read');
    };
    const onGone = () => finish('client_gone');
    // Called from events only, after everything below is set up.
    function finish(why: Why): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      client.off('data', onData);
      client.off('end', onGone);
      client.off('close', onGone);
      client.pause();
      stopTarget();
      resolve(verdict(peekFirstBytes(bytes), why, bytes, judge, t));
    }
    const stopTarget = whenTargetSpeaks(target, () => finish('target'));
    client.on('data', onData);
    client.once('end', onGone);
    client.once('close', onGone);
    client.resume();
  });
}

/** A tunnel whose TLS server name the target policy or the account's rules (`judge`) check first: started, or closed and recorded unrelayed. */
export async function startAfterSni(
  socket: Socket,
  { accepted, target, protocol, seq, connectMs }: Opened,
  judge: TargetJudge,
  gw: { tunnels: Tunnels; metrics: GatewayMetrics; logger: Logger; timeouts: SniTimeouts },
): Promise<void> {
  const v = await checkTunnelSni(socket, target, accepted.leftover, judge, gw.timeouts);
  if (v.pass) {
    gw.tunnels.start(socket, target, { ...accepted, leftover: v.first }, protocol, seq, connectMs);
    return;
  }
  // Closed before the first bytes went anywhere: the target got nothing, billed 0.
  target.destroy();
  socket.destroy();
  if (v.outcome === 'blocked') {
    gw.metrics.tunnelRefused(protocol, 'blocked');
    const proxyUserId = accepted.session.parts.proxyUserId;
    gw.logger.info(
      { protocol, reason: v.reason, proxyUserId, remote: socket.remoteAddress },
      "tunnel closed by the target policy or the account's target rules",
    );
  }
  recordUnrelayed(accepted, protocol, v.outcome, v.reason, seq);
}
