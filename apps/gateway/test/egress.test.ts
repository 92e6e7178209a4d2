// Direct egress refuses private destinations however they are written, IPv6 transition forms
// included; checked on addresses only, no traffic is sent.
import { describe, expect, it } from 'vitest';
import { createEgress, embeddedIPv4, EgressError, isPrivateAddress } from '../src/egress';

/** Each private IPv4 target below, written in every IPv6 form that carries an IPv4 address. */
function transitionForms(v4: string): string[] {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
  const inv = (x: number, y: number) => (~((x << 8) | y) & 0xffff).toString(16);
  return [
    `::ffff:${v4}`, // IPv4-mapped
    `::ffff:${hex(a, b)}:${hex(c, d)}`,
    `::ffff:0:${v4}`, // stateless translation (RFC 6145)
    `::${v4}`, // IPv4-compatible (deprecated)
    `64:ff9b::${v4}`, // NAT64 (RFC 6052)
    `64:ff9b::${hex(a, b)}:${hex(c, d)}`,
    `2002:${hex(a, b)}:${hex(c, d)}::1`, // 6to4
    `2002:${hex(a, b)}:${hex(c, d)}:0:0:0:0:0`, // as a SOCKS5 request spells it
    `2001:0:${hex(a, b)}:${hex(c, d)}:8000:63bf:f7f7:f7f7`, // Teredo server (client 8.8.8.8)
    `2001:0:4136:e378:8000:63bf:${inv(a, b)}:${inv(c, d)}`, // Teredo client, bits inverted (server public)
  ];
}

describe('direct egress address checks', () => {
  it('refuses IPv6 transition forms of private, loopback, link-local and metadata IPv4 addresses', () => {
    for (const v4 of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1']) {
      expect(isPrivateAddress(v4), v4).toBe(true);
      for (const v6 of transitionForms(v4)) expect(isPrivateAddress(v6), `${v6} (${v4})`).toBe(true);
    }
  });

  it('refuses unique-local, link-local and local-use NAT64 IPv6 ranges', () => {
    for (const a of [
      'fc00::1',
      'fd12:3456::1',
      'fdff:ffff::1',
      'fe80::1',
      'fe80::1%eth0',
      'febf::1',
      '64:ff9b:1::a00:1',
      '64:ff9b:1:ffff::8.8.8.8',
      '::',
      '::1',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
  });

  it('lets public destinations through, in transition forms too', () => {
    for (const v6 of ['2606:4700:4700::1111', '2a00:1450:4001::200e', 'fbff::1', 'fe00::1', ...transitionForms('8.8.8.8')]) {
      expect(isPrivateAddress(v6), v6).toBe(false);
    }
  });

  it('reads the embedded IPv4 addresses of each form', () => {
    expect(embeddedIPv4('::ffff:7f00:1')).toEqual(['127.0.0.1']);
    expect(embeddedIPv4('64:ff9b::a9fe:a9fe')).toEqual(['169.254.169.254']);
    expect(embeddedIPv4('2002:c0a8:101::1')).toEqual(['192.168.1.1']);
    expect(embeddedIPv4('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toEqual(['65.54.227.120', '192.0.2.45']);
    expect(embeddedIPv4('2606:4700:4700::1111')).toEqual([]);
  });

  it('refuses such a destination before connecting anywhere', async () => {
    const egress = createEgress({ allowPrivate: false, connectTimeoutMs: 1000 });
    for (const host of ['[2002:7f00:1::1]', '2001:0:a9fe:a9fe::1', '[::ffff:0:10.0.0.1]', 'fd00::1']) {
      const err = await egress({ host, port: 80, location: { country: 'US' }, session: 's', sid: '', durationMinutes: 1 }).catch((e: unknown) => e);
      expect(err, host).toBeInstanceOf(EgressError);
      expect((err as EgressError).kind, host).toBe('forbidden');
    }
  });
});
