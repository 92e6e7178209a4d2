import { describe, expect, it } from 'vitest';
import { networkKey } from './address-key';

describe('networkKey (the referral rule\'s "same network")', () => {
  it('an IPv4 address is its /24, an IPv6 one its /64, an IPv4-mapped one as IPv4', () => {
    expect(networkKey('198.51.100.7')).toBe('198.51.100.0/24');
    expect(networkKey('198.51.100.200')).toBe(networkKey('198.51.100.7'));
    expect(networkKey('198.51.101.7')).not.toBe(networkKey('198.51.100.7'));
    expect(networkKey('::ffff:198.51.100.9')).toBe('198.51.100.0/24');
    expect(networkKey('2001:db8:1:2::1')).toBe(networkKey('2001:db8:1:2:ffff::9'));
    expect(networkKey('2001:db8:1:3::1')).not.toBe(networkKey('2001:db8:1:2::1'));
  });

  it("addresses that are no customer's network are none", () => {
    for (const a of ['127.0.0.1', '::1', '10.1.2.3', '192.168.0.5', '172.16.0.1', 'fe80::1', 'fd00::1', '100.64.0.1', '0.0.0.0', 'not an ip', '', undefined]) {
      expect(networkKey(a), String(a)).toBeNull();
    }
  });
});
