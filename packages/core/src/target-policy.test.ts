import { describe, expect, it } from 'vitest';
import { TargetMatcher, targetPolicyInput } from './target-policy';

describe('target policy patterns', () => {
  it('example.com blocks it and every subdomain; *.example.com only subdomains', () => {
    const m = new TargetMatcher(['example.com', '*.bank.test']);
    expect(m.blocks('example.com')).toBe(true);
    expect(m.blocks('WWW.Example.COM.')).toBe(true);
    expect(m.blocks('a.b.example.com')).toBe(true);
    expect(m.blocks('notexample.com')).toBe(false);
    expect(m.blocks('example.com.evil.net')).toBe(false);
    expect(m.blocks('bank.test')).toBe(false);
    expect(m.blocks('www.bank.test')).toBe(true);
    expect(new TargetMatcher([]).blocks('example.com')).toBe(false);
  });

  it('names an invalid pattern; normalizes and dedupes valid ones; at most 10,000', () => {
    expect(targetPolicyInput.parse({ rules: ['Example.com', 'example.com.', '*.A.b'] })).toEqual({ rules: ['example.com', '*.a.b'], blockRawIp: false });
    for (const bad of ['exa mple.com', '*.', '*', '-a.com', 'a..com', 'http://a.com', '**.a.com']) {
      const r = targetPolicyInput.safeParse({ rules: ['ok.com', bad] });
      expect(r.success).toBe(false);
      expect(r.error!.issues[0]!.message).toBe(`Blocked domains: invalid pattern "${bad}"`);
    }
    expect(targetPolicyInput.safeParse({ rules: Array.from({ length: 10_001 }, (_, i) => `d${i}.com`) }).success).toBe(false);
  });
});
