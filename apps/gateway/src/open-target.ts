/**
 * A tunnel's far end, after its login: a connection slot when the account has a limit
 * (connection-slots.ts), a byte lease (nothing is relayed unpaid), then the target through the
 * egress, with the sticky session the username asked for.
 */
import type { Socket } from 'node:net';
import { isRotating } from '@proxyhub/core';
import type { Session } from './authenticator';
import { EgressError, type Egress, type TargetSocket } from './egress';
import type { MeteredConnection } from './meter';
import { TARGET_BLOCKED_MESSAGE, TARGET_NOT_ALLOWED_MESSAGE } from '@proxyhub/core';
import { takeSlot } from './connection-slots';
import type { TargetPolicyGate } from './target-policy';
import { leaseRefusal, TOO_MANY_CONNECTIONS_MESSAGE } from './metered-flow';
import { refusal, type Refusal } from './protocols/handshake';
import type { HostPort } from './protocols/host';
import { StickySessions } from './sessions';
import type { LineRotations } from './line-rotations';

/** `hostHeader`: a forwarded request's Host target ('' none), refused by the policy like the target itself. */
export type OpenTarget = (
  session: Session,
  target: HostPort,
  client: Socket,
  hostHeader?: string,
) => Promise<{ ok: true; socket: TargetSocket } | Refusal | null>;

/**
 * The policy's refusal when the account is not exempt and any of `hosts` is blocked; else the
 * account's own rules' refusal when they refuse any of them (the owner's exemption is from the
 * operator's policy, not from their own rules); null otherwise.
 */
export function policyRefusal(policy: TargetPolicyGate | undefined, session: Session, hosts: readonly string[]): Refusal | null {
  const { account } = session;
  if (policy && !account.targetPolicyExempt && policy.blocksAny(hosts)) return refusal('blocked', TARGET_BLOCKED_MESSAGE);
  const rules = account.targetRules;
  if (rules && hosts.some((h) => h !== '' && rules.refuses(h))) return refusal('blocked', TARGET_NOT_ALLOWED_MESSAGE);
  return null;
}

/**
 * Opens targets through `egress`; null when the client went away meanwhile. `sessionSecret` (the
 * fleet's shared internal key) derives each line's sticky session, the same on every gateway, with
 * the line's rotation counter when its owner asked for a new IP (`rotations`).
 */
export function targetOpener(egress: Egress, sessionSecret = '', policy?: TargetPolicyGate, rotations?: LineRotations): OpenTarget {
  const sticky = new StickySessions(sessionSecret);
  return async (session, target, client, hostHeader = '') => {
    const { account: acc, parts } = session;
    // Refused before anything is opened or leased: billed 0.
    const blocked = policyRefusal(policy, session, [target.host, hostHeader]);
    if (blocked) return blocked;
    if (!takeSlot(acc, client)) return refusal('too_many_connections', TOO_MANY_CONNECTIONS_MESSAGE);
    // Counted as a connection of the account from here, so an idle release cannot pull its leases.
    const pending: MeteredConnection = { credKey: session.credKey, remote: client.remoteAddress, close: () => client.destroy() };
    acc.conns.add(pending);
    try {
      // A probe is relayed unbilled from an account with no wallet: nothing to lease.
      const noLease = session.probe ? null : await leaseRefusal(acc);
      if (noLease) return noLease;
      if (client.destroyed) return null;
      let socket: TargetSocket;
      // A rotating line (duration 0) carries no session at all: the provider picks a new exit.
      const rotating = isRotating(parts);
      const line = sticky.session(parts.proxyUserId, parts.token, parts.durationMinutes, Date.now(), rotations?.of(acc.id, parts.token));
      try {
        socket = await egress({
          host: target.host,
          port: target.port,
          location: parts.location,
          session: line.id,
          token: rotating ? '' : parts.token,
          sid: line.sid,
          durationMinutes: parts.durationMinutes,
          hard: parts.hard,
          sticky: line,
          pin: session.probe?.upstreamId,
        });
      } catch (err) {
        if (err instanceof EgressError) return refusal(err.kind, err.message);
        throw err;
      }
      if (client.destroyed) {
        socket.destroy();
        return null;
      }
      return { ok: true, socket };
    } finally {
      acc.conns.delete(pending);
    }
  };
}
