/**
 * A proxy account's own target rules (PUT /api/proxy-accounts/:id/targets): the customer's allow
 * or deny list of targets, in the admin target policy's pattern grammar (target-policy.ts:
 * `example.com` is it and every subdomain, `*.example.com` only its subdomains) and matched by the
 * same TargetMatcher. `deny` refuses the listed hosts; `allow` refuses every other target, a target
 * given as an IP address included (no pattern names an address).
 */
import { z } from 'zod';
import { normalizePattern, TargetMatcher } from './target-policy';
import { numericIPv4 } from './target-host';

export const MAX_TARGET_RULES = 1000;
export const TARGET_RULE_MODES = ['allow', 'deny'] as const;
export type TargetRuleMode = (typeof TARGET_RULE_MODES)[number];
export const TARGET_NOT_ALLOWED_MESSAGE = 'Target not allowed for this proxy account';
/** `main` names the caller's main proxy account in the path; any other id is a proxy user id of theirs. */
export const MAIN_ACCOUNT_ID = 'main';

export interface TargetRules {
  mode: TargetRuleMode;
  /** Normalized patterns, each once. */
  patterns: string[];
}

/** What an account has before its owner sets anything: nothing refused. */
export const NO_TARGET_RULES: TargetRules = { mode: 'deny', patterns: [] };

const accountId = z.string({ error: 'Proxy account is required' }).trim().min(1, 'Proxy account is required').max(64, 'Proxy account not found');

export const targetRulesAccountInput = z.object({ id: accountId });

const rulesFields = {
  mode: z.enum(TARGET_RULE_MODES, { error: 'Mode must be allow or deny' }),
  patterns: z
    .array(z.string({ error: 'Patterns must be domain patterns' }), { error: 'Patterns must be a list of domain patterns' })
    .max(MAX_TARGET_RULES, `Patterns: at most ${MAX_TARGET_RULES} patterns`),
};

/** The first pattern that is none, as the 400 names it. */
function refineOne(patterns: readonly string[], ctx: z.RefinementCtx): void {
  const bad = patterns.find((p) => normalizePattern(p) === null);
  if (bad !== undefined) ctx.addIssue({ code: 'custom', path: ['patterns'], message: `Patterns: invalid pattern "${bad.slice(0, 100)}"` });
}

const normalized = (patterns: readonly string[]) => [...new Set(patterns.map((p) => normalizePattern(p)!))];

/** The form's input (no account: the page knows which one it edits). */
export const targetRulesInput = z
  .object(rulesFields)
  .superRefine((v, ctx) => refineOne(v.patterns, ctx))
  .transform((v): TargetRules => ({ mode: v.mode, patterns: normalized(v.patterns) }));

/** PUT /api/proxy-accounts/:id/targets: the account and its new rules (they replace the old ones). */
export const setTargetRulesInput = z
  .object({ id: accountId, ...rulesFields })
  .superRefine((v, ctx) => refineOne(v.patterns, ctx))
  .transform((v) => ({ id: v.id, mode: v.mode, patterns: normalized(v.patterns) }));

/** "Block for this account": hosts merged into the account's deny rules. */
export const blockTargetsInput = z
  .object({
    id: accountId,
    hosts: z
      .array(z.string({ error: 'Hosts must be host names' }), { error: 'Hosts must be a list of host names' })
      .min(1, 'Choose at least one host to block')
      .max(MAX_TARGET_RULES, `Hosts: at most ${MAX_TARGET_RULES} hosts`),
  })
  .superRefine((v, ctx) => {
    const bad = v.hosts.find((p) => normalizePattern(p) === null);
    if (bad !== undefined) ctx.addIssue({ code: 'custom', path: ['hosts'], message: `Hosts: invalid host "${bad.slice(0, 100)}"` });
  })
  .transform((v) => ({ id: v.id, hosts: normalized(v.hosts) }));

export type TargetRulesInput = z.input<typeof targetRulesInput>;
export type SetTargetRulesInput = z.input<typeof setTargetRulesInput>;
export type BlockTargetsInput = z.input<typeof blockTargetsInput>;

/** Whether a host is an address rather than a name (an IPv6 literal, or IPv4 in any numeric spelling). */
function isAddress(host: string): boolean {
  return host.includes(':') || numericIPv4(host) !== undefined;
}

/** One account's rules, ready to match: built once per answer, then a suffix walk per host. */
export class TargetRulesMatcher {
  private readonly matcher: TargetMatcher;
  readonly mode: TargetRuleMode;

  constructor(rules: TargetRules) {
    this.mode = rules.mode;
    this.matcher = new TargetMatcher(rules.patterns);
  }

  /** Whether tunnels' first requests (TLS server name, HTTP Host) need reading: only when a name can be refused. */
  get checksNames(): boolean {
    return this.mode === 'allow' || this.matcher.size > 0;
  }

  /** Whether the account's rules refuse this target host (a name, or an address as the client gave it). */
  refuses(host: string): boolean {
    const h = host.startsWith('[') ? host.slice(1, -1) : host;
    if (isAddress(h)) return this.mode === 'allow';
    const listed = this.matcher.blocks(h);
    return this.mode === 'deny' ? listed : !listed;
  }
}
