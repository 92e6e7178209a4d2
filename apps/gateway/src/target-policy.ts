/**
 * The operator's target policy at the gateway: polled from the server every few seconds (a change
 * reaches every gateway within 10 s) and matched per connection in microseconds (core's
 * TargetMatcher: a suffix walk, whatever the number of rules). A blocked target is refused before
 * any connection to it (open-target.ts): 403 "Target blocked by policy", SOCKS5 reply 2.
 */
import { isIP } from 'node:net';
import { TargetMatcher } from '@proxyhub/core';
import type { Backend } from './backend';
import type { Logger } from './log';

export const TARGET_POLICY_POLL_MS = 5000;

export class TargetPolicyGate {
  private matcher = new TargetMatcher([]);
  private blockRawIp = false;
  private timer: NodeJS.Timeout | null = null;

  /** Whether a target host (a name, or an IP address as the client gave it) is refused. */
  blocks(host: string): boolean {
    const h = host.startsWith('[') ? host.slice(1, -1) : host;
    if (isIP(h)) return this.blockRawIp;
    return this.matcher.blocks(h);
  }

  /** Whether tunnels' TLS server names need reading at all (tunnel-sni.ts): only with domain rules. */
  get checksNames(): boolean {
    return this.matcher.size > 0;
  }

  set(policy: { rules: string[]; blockRawIp: boolean }): void {
    this.matcher = new TargetMatcher(policy.rules);
    this.blockRawIp = policy.blockRawIp;
  }

  async refresh(backend: Backend): Promise<void> {
    if (backend.targetPolicy) this.set(await backend.targetPolicy());
  }

  start(backend: Backend, logger: Logger, everyMs = TARGET_POLICY_POLL_MS): void {
    if (this.timer || !backend.targetPolicy) return;
    this.timer = setInterval(() => {
      this.refresh(backend).catch((err: unknown) => logger.warn({ err }, 'could not read the target policy; keeping the last one'));
    }, everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
