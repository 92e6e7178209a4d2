/**
 * The target policy on a tunnel's TLS server name (SNI). A tunnel opened to an allowed name must
 * not carry a ClientHello for a blocked one (one CDN address serves many names), so before the
 * relay starts, the client's first bytes are read: anything that is not a TLS handshake record is
 * relayed at once; a ClientHello is read whole and its name checked, and a blocked name closes the
 * tunnel before the hello reaches the target. Bounded: one hello (MAX_CLIENT_HELLO_BYTES) and
 * SNI_WAIT_MS at most; a target that speaks first (SMTP, SSH) ends the wait at once. A hello that
 * cannot be read, or stops half way, is closed too: otherwise splitting or mangling it would hide
 * the name. The gateway skips all this when the policy has no rules or the user is exempt.
 */
import type { Socket } from 'node:net';
import { TARGET_BLOCKED_MESSAGE } from '@proxyhub/core';
import type { Session } from './authenticator';
import { recordUnrelayed } from './connection-log/record';
import type { TargetSocket } from './egress';
import type { Logger } from './log';
import type { GatewayMetrics } from './metrics';
import type { ProtocolName } from './protocols/answers';
import type { Accepted } from './protocols/handshake';
import { peekClientHello, type HelloPeek } from './protocols/tls-sni';
import type { TargetPolicyGate } from './target-policy';
import type { Tunnels } from './tunnels';

/** A handshake done and its target connected: what the relay starts from. */
export type Opened = { accepted: Accepted<Session>; target: TargetSocket; protocol: ProtocolName };

/** How long a tunnel's first client bytes may take to show a whole ClientHello. */
export const SNI_WAIT_MS = 3000;

export type SniVerdict = { pass: true; first: Buffer } | { pass: false; outcome: 'blocked' | 'client_closed'; reason: string };

type Why = 'read' | 'target' | 'timeout' | 'client_gone';

function verdict(peek: HelloPeek, why: Why, first: Buffer, blocks: (host: string) => boolean): SniVerdict {
  const pass: SniVerdict = { pass: true, first };
  const blocked = (reason: string): SniVerdict => ({ pass: false, outcome: 'blocked', reason });
  switch (peek.state) {
    case 'other':
      return pass;
    case 'hello':
      return peek.sni && blocks(peek.sni) ? blocked(`${TARGET_BLOCKED_MESSAGE} (TLS server name ${peek.sni})`) : pass;
    case 'unreadable':
      return blocked(`${TARGET_BLOCKED_MESSAGE} (unreadable TLS ClientHello)`);
    case 'more':
      if (why === 'client_gone') return { pass: false, outcome: 'client_closed', reason: 'the client closed the connection' };
      // The target spoke first, or the client is silent: not a TLS client.
      if (why === 'target' || first.length === 0) return pass;
      return blocked(`${TARGET_BLOCKED_MESSAGE} (TLS ClientHello not complete within ${SNI_WAIT_MS} ms)`);
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
 * what they are; `first` is everything read, for the relay to send first. Both sockets are left paused.
 */
export function checkTunnelSni(
  client: Socket,
  target: TargetSocket,
  leftover: Buffer,
  blocks: (host: string) => boolean,
  waitMs = SNI_WAIT_MS,
): Promise<SniVerdict> {
  const now = peekClientHello(leftover);
  if (now.state !== 'more') return Promise.resolve(verdict(now, 'read', leftover, blocks));
  if (client.destroyed) return Promise.resolve(verdict(now, 'client_gone', leftover, blocks));
  if ((target.earlyReads?.length ?? 0) > 0 || target.readableLength > 0 || target.destroyed) return Promise.resolve(verdict(now, 'target', leftover, blocks));
  return new Promise((resolve) => {
    let bytes = leftover;
    let done = false;
    const onData = (chunk: Buffer) => {
      bytes = bytes.length ? Buffer.concat([bytes, chunk]) : chunk;
      if (peekClientHello(bytes).state !== 'more') finish('read');
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
      resolve(verdict(peekClientHello(bytes), why, bytes, blocks));
    }
    const timer = setTimeout(() => finish('timeout'), waitMs);
    const stopTarget = whenTargetSpeaks(target, () => finish('target'));
    client.on('data', onData);
    client.once('end', onGone);
    client.once('close', onGone);
    client.resume();
  });
}

/** A tunnel whose TLS server name the target policy checks first: started, or closed and recorded unrelayed. */
export async function startAfterSni(
  socket: Socket,
  { accepted, target, protocol }: Opened,
  gw: { tunnels: Tunnels; policy: TargetPolicyGate; metrics: GatewayMetrics; logger: Logger },
): Promise<void> {
  const v = await checkTunnelSni(socket, target, accepted.leftover, (host) => gw.policy.blocks(host));
  if (v.pass) {
    gw.tunnels.start(socket, target, { ...accepted, leftover: v.first }, protocol);
    return;
  }
  // Closed before the ClientHello went anywhere: the target got nothing, billed 0.
  target.destroy();
  socket.destroy();
  if (v.outcome === 'blocked') {
    gw.metrics.tunnelRefused(protocol, 'blocked');
    const proxyUserId = accepted.session.parts.proxyUserId;
    gw.logger.info({ protocol, reason: v.reason, proxyUserId, remote: socket.remoteAddress }, 'tunnel closed by the target policy');
  }
  recordUnrelayed(accepted, protocol, v.outcome, v.reason);
}
