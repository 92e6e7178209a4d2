/**
 * The target policy's domain patterns and their lookup. `example.com` blocks it and every
 * subdomain, `*.example.com` only its subdomains. The lookup walks the host's suffixes (one Set
 * look-up per label), so its cost depends on the host, not on the number of rules.
 */
import { z } from 'zod';

export const MAX_TARGET_POLICY_RULES = 10_000;
export const TARGET_BLOCKED_MESSAGE = 'Target blocked by policy';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A pattern, lower-cased, or null when it is not one. */
export function normalizePattern(raw: string): string | null {
  const p = raw.trim().toLowerCase().replace(/\.$/, '');
  const name = p.startsWith('*.') ? p.slice(2) : p;
  if (!name || name.length > 253) return null;
  const labels = name.split('.');
  return labels.every((l) => LABEL.test(l)) ? p : null;
}

export const targetPolicyInput = z
  .object({
    rules: z
      .array(z.string({ error: 'Blocked domains must be domain patterns' }), { error: 'Blocked domains must be a list of domain patterns' })
      .max(MAX_TARGET_POLICY_RULES, `Blocked domains: at most ${MAX_TARGET_POLICY_RULES} patterns`),
    blockRawIp: z.boolean({ error: 'Block raw IP addresses must be true or false' }).default(false),
  })
  .superRefine((v, ctx) => {
    const bad = v.rules.find((r) => normalizePattern(r) === null);
    if (bad !== undefined) ctx.addIssue({ code: 'custom', path: ['rules'], message: `Blocked domains: invalid pattern "${bad.slice(0, 100)}"` });
  })
  .transform((v) => ({ rules: [...new Set(v.rules.map((r) => normalizePattern(r)!))], blockRawIp: v.blockRawIp }));

export type TargetPolicyInput = z.input<typeof targetPolicyInput>;
export type TargetPolicy = z.output<typeof targetPolicyInput>;

export class TargetMatcher {
  /** `example.com`: it and its subdomains. */
  private readonly whole = new Set<string>();
  /** `*.example.com`: its subdomains only. */
  private readonly subs = new Set<string>();

  constructor(rules: readonly string[]) {
    for (const r of rules) {
      if (r.startsWith('*.')) this.subs.add(r.slice(2));
      else this.whole.add(r);
    }
  }

  get size(): number {
    return this.whole.size + this.subs.size;
  }

  /** Whether a host name (not an IP address) is blocked. */
  blocks(host: string): boolean {
    if (this.size === 0) return false;
    let h = host.toLowerCase();
    if (h.endsWith('.')) h = h.slice(0, -1);
    if (this.whole.has(h)) return true;
    for (let i = h.indexOf('.'); i !== -1; i = h.indexOf('.', i + 1)) {
      const suffix = h.slice(i + 1);
      if (this.whole.has(suffix) || this.subs.has(suffix)) return true;
    }
    return false;
  }
}
