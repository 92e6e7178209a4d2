import { describe, expect, it } from 'vitest';
import { AllowlistMatcher, parseAllowlistEntry, parseEntryPortRange, parseLocationText, passwordlessEligible, setIpAllowlistInput } from './ip-allowlist';

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

describe('entry ports', () => {
  it('reads a range of at most 100 ports, or one port', () => {
    expect(parseEntryPortRange('20000-20099')).toEqual({ from: 20000, to: 20099 });
    expect(parseEntryPortRange(' 30000 ')).toEqual({ from: 30000, to: 30000 });
    for (const bad of ['20000-20100', '0-10', '65535-65536', '20099-20000', 'x', '']) expect(parseEntryPortRange(bad)).toBeNull();
  });

  it('takes entries as text or with port profiles, a location as a username writes it, each port once', () => {
    expect(parseLocationText('US-CA-LOSANGELES')).toEqual({ country: 'US', state: 'CA', city: 'LOSANGELES' });
    expect(parseLocationText('FR')).toEqual({ country: 'FR' });
    expect(parseLocationText('US-CA-LA-X')).toBeNull();
    const ok = setIpAllowlistInput.parse({ entries: ['10.0.0.1', { entry: '10.0.0.2', ports: [{ port: 20000, location: ' fr ', durationMinutes: 0 }] }] });
    expect(ok.entries[1]).toEqual({ entry: '10.0.0.2', ports: [{ port: 20000, location: 'FR', durationMinutes: 0 }] });
    const message = (input: unknown) => setIpAllowlistInput.safeParse(input).error?.issues[0]?.message;
    const profile = { port: 20000, location: 'FR', durationMinutes: 0 };
    expect(message({ entries: [{ entry: '10.0.0.2', ports: [profile, profile] }] })).toBe('Port 20000 is listed twice for one entry');
    expect(message({ entries: [{ entry: '10.0.0.2', ports: [{ ...profile, durationMinutes: 10081 }] }] })).toBe(
      'Session duration must be 0 (rotating) or 1 to 10080 minutes',
    );
    expect(message({ entries: [{ entry: '10.0.0.2', ports: [{ ...profile, location: 'fr_x' }] }] })).toContain('Location must be');
    expect(message({ entries: [{ entry: '10.0.0.2', ports: [{ ...profile, proxyAccountId: 'NOT AN ID' }] }] })).toContain('Proxy account must be');
  });
});
