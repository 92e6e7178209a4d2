import { describe, expect, it } from 'vitest';
import { AllowlistMatcher, parseAllowlistEntry, passwordlessEligible } from './ip-allowlist';

describe('IP allow-list entries', () => {
  it('normalises addresses and ranges, and refuses what is neither', () => {
    expect(parseAllowlistEntry(' 10.0.0.7/24 ')).toMatchObject({ kind: 'ipv4', entry: '10.0.0.0/24', cidr: '10.0.0.0/24' });
    expect(parseAllowlistEntry('203.0.113.9/32')).toMatchObject({ entry: '203.0.113.9', cidr: '203.0.113.9/32' });
    expect(parseAllowlistEntry('2001:DB8:0:0::1')).toMatchObject({ kind: 'ipv6', entry: '2001:db8::1', cidr: '2001:db8::1/128' });
    expect(parseAllowlistEntry('::ffff:192.0.2.1')).toMatchObject({ kind: 'ipv4', entry: '192.0.2.1' });
    expect(parseAllowlistEntry('::ffff:192.0.2.0/120')).toMatchObject({ kind: 'ipv4', entry: '192.0.2.0/24' });
    for (const bad of ['', '1.2.3', '1.2.3.4/33', '1.2.3.4/024', '0x7f.0.0.1', 'fe80::1%lo', '::/129', 'localhost'])
      expect(parseAllowlistEntry(bad)).toBeNull();
  });

  it('password-less entries are at most a /24 (IPv4) or a /56 (IPv6)', () => {
    expect(passwordlessEligible(parseAllowlistEntry('10.0.0.0/24')!)).toBe(true);
    expect(passwordlessEligible(parseAllowlistEntry('10.0.0.0/23')!)).toBe(false);
    expect(passwordlessEligible(parseAllowlistEntry('2001:db8::/56')!)).toBe(true);
    expect(passwordlessEligible(parseAllowlistEntry('2001:db8::/48')!)).toBe(false);
  });

  it('matches source addresses: IPv4-mapped as IPv4, an empty list admits all, an unknown source none', () => {
    const list = new AllowlistMatcher(['127.0.0.1/32', '10.1.0.0/16', '2001:db8:5::/56']);
    expect(list.admits('127.0.0.1')).toBe(true);
    expect(list.admits('::ffff:127.0.0.1')).toBe(true);
    expect(list.admits('127.0.0.2')).toBe(false);
    expect(list.admits('10.1.255.3')).toBe(true);
    expect(list.admits('2001:db8:5:ff::1')).toBe(true);
    expect(list.admits('2001:db8:6::1')).toBe(false);
    expect(list.admits(undefined)).toBe(false);
    expect(new AllowlistMatcher([]).admits('198.51.100.1')).toBe(true);
  });
});
