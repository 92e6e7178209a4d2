/**
 * The operator's target policy at the gateway: polled from the server every few seconds (a change
 * reaches every gateway within 10 s) and matched per connection in microseconds (core's
 * TargetMatcher: a suffix walk, whatever the number of rules). A blocked target is refused before
 * any connection to it (open-target.ts): 403 "Target blocked by policy", SOCKS5 reply 2. Each
 * account's own target rules come with its login answer instead (refreshed with it, seconds) and
 * are matched the same way: 403 "Target not allowed for this proxy account".
 */
import { isIP } from 'node:net';
import { numericIPv4, TARGET_BLOCKED_MESSAGE, TARGET_NOT_ALLOWED_MESSAGE, TargetMatcher, TargetRulesMatcher, type TargetRules } from '@proxyhub/core';
import type { Backend } from './backend';
import type { Account } from './meter';
import type { Logger } from './log';

export const TARGET_POLICY_POLL_MS = 5000;

export class TargetPolicyGate {
  private matcher = new TargetMatcher([]);
  private blockRawIp = false;
  private timer: NodeJS.Timeout | null = null;

  /**
   * Whether a target host (a name, or an IP address as the client gave it) is refused. Any
   * spelling made only of numbers is an address too (the protocols already turn it into its dotted
   * quad; this holds wherever a host comes from).
   */
  blocks(host: string): boolean {
    const h = host.startsWith('[') ? host.slice(1, -1) : host;
    if (isIP(h) || numericIPv4(h) !== undefined) return this.blockRawIp;
    return this.matcher.blocks(h);
  }

  /** Whether any of a request's target hosts is refused (a forwarded request's URI host and Host header); '' is none. */
  blocksAny(hosts: readonly string[]): boolean {
    return hosts.some((h) => h !== '' && this.blocks(h));
  }

  /** Whether tunnels' first requests (TLS server name, HTTP Host) need reading at all (tunnel-sni.ts): only with domain rules. */
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

/** One matcher per answer's rules (answers are shared by the login cache until the next refresh). */
const ruleMatchers = new WeakMap<TargetRules, TargetRulesMatcher>();

/** The account's own rules from a login answer, ready to match; null when it has none. */
export function accountRulesOf(rules: TargetRules | undefined): TargetRulesMatcher | null {
  if (!rules) return null;
  let m = ruleMatchers.get(rules);
  if (!m) ruleMatchers.set(rules, (m = new TargetRulesMatcher(rules)));
  return m;
}

/**
 * Who refuses a target host for this account, as the refusal's text: the operator's policy first
 * (unless the owner is exempt), then the account's own rules; null when neither does. `message`
 * is the text for a first request that cannot be read (the rule set that made the check).
 */
export interface TargetJudge {
  refuses(host: string): string | null;
  message: string;
}

/** The judge of an account's targets, or null when nothing could refuse a name (no tunnel read needed). */
export function targetJudge(policy: TargetPolicyGate | undefined, account: Account): TargetJudge | null {
  const byPolicy = policy !== undefined && !account.targetPolicyExempt;
  const rules = account.targetRules;
  if (!(byPolicy && policy.checksNames) && !rules?.checksNames) return null;
  return {
    refuses: (host) => (byPolicy && policy.blocks(host) ? TARGET_BLOCKED_MESSAGE : rules?.refuses(host) ? TARGET_NOT_ALLOWED_MESSAGE : null),
    message: byPolicy && policy.checksNames ? TARGET_BLOCKED_MESSAGE : TARGET_NOT_ALLOWED_MESSAGE,
  };
}
