import { describe, expect, it } from 'vitest';
import { setTargetRulesInput, TargetRulesMatcher } from './target-rules';

describe('TargetRulesMatcher', () => {
  it('deny refuses the listed hosts and their subdomains, never an address', () => {
    const m = new TargetRulesMatcher({ mode: 'deny', patterns: ['ads.test', '*.cdn.test'] });
    expect(['ads.test', 'x.ads.test', 'ADS.test.', 'a.cdn.test'].map((h) => m.refuses(h))).toEqual([true, true, true, true]);
    expect(['cdn.test', 'notads.test', '127.0.0.1', '[::1]', '2130706433'].map((h) => m.refuses(h))).toEqual([false, false, false, false, false]);
  });

  it('allow refuses everything unlisted, addresses in any spelling included', () => {
    const m = new TargetRulesMatcher({ mode: 'allow', patterns: ['shop.test'] });
    expect(['shop.test', 'www.shop.test'].map((h) => m.refuses(h))).toEqual([false, false]);
    expect(['other.test', 'shop.test.evil', '10.0.0.1', '0x7f.1', '[2001:db8::1]'].map((h) => m.refuses(h))).toEqual([true, true, true, true, true]);
    expect(m.checksNames).toBe(true);
    expect(new TargetRulesMatcher({ mode: 'deny', patterns: [] }).checksNames).toBe(false);
  });

  it('the input names the first invalid pattern and normalizes the rest', () => {
    const bad = setTargetRulesInput.safeParse({ id: 'main', mode: 'deny', patterns: ['a.test', '-bad-.test'] });
    expect(bad.success ? '' : bad.error.issues[0]!.message).toBe('Patterns: invalid pattern "-bad-.test"');
    expect(setTargetRulesInput.parse({ id: 'main', mode: 'allow', patterns: ['A.test', 'a.test.', '*.B.test'] })).toEqual({
      id: 'main',
      mode: 'allow',
      patterns: ['a.test', '*.b.test'],
    });
  });
});
