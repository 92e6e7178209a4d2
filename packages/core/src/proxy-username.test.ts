import { describe, expect, it } from 'vitest';
import { GENERATOR_DURATION_OPTIONS } from './constants';
import { PROXY_FORMATS, formatProxyLine, generateProxies, isSocksFormat } from './proxy-list';
import { buildProxyUsername, isRotating, parseProxyUsername, randomSessionToken } from './proxy-username';
import { generateProxiesForm } from './schemas/proxies';

describe('proxy usernames', () => {
  it('parses every built username back to what was built', () => {
    const locations = [
      { country: 'US' },
      { country: 'US', state: 'CA' },
      { country: 'US', state: 'CA', city: 'LOSANGELES' },
      { country: 'GB', state: 'ENG', city: 'LONDON' },
    ];
    for (const location of locations) {
      for (const durationMinutes of [...GENERATOR_DURATION_OPTIONS, 1]) {
        const token = randomSessionToken();
        const username = buildProxyUsername({ proxyUserId: 'abc123xyz', location, durationMinutes, token });
        const parsed = parseProxyUsername(username);
        expect(parsed).toEqual({
          ok: true,
          value: { proxyUserId: 'abc123xyz', location: { state: undefined, city: undefined, ...location }, durationMinutes, token },
        });
      }
    }
  });

  it('builds the spec shape', () => {
    expect(buildProxyUsername({ proxyUserId: 'abc123xyz', location: { country: 'US', state: 'NY' }, durationMinutes: 60, token: 'ABCDEFGH' })).toBe(
      'abc123xyz_US-NY_60_ABCDEFGH',
    );
  });

  it('builds and parses a rotating line (duration 0); durations 1 to 10080 stay sticky', () => {
    const username = buildProxyUsername({ proxyUserId: 'abc123xyz', location: { country: 'US' }, durationMinutes: 0, token: 'ABCDEFGH' });
    expect(username).toBe('abc123xyz_US_0_ABCDEFGH');
    const parsed = parseProxyUsername(username);
    expect(parsed).toMatchObject({ ok: true, value: { durationMinutes: 0, token: 'ABCDEFGH' } });
    expect(parsed.ok && isRotating(parsed.value)).toBe(true);
    for (const m of [1, 60, 10080]) {
      const p = parseProxyUsername(`abc123xyz_US_${m}_ABCDEFGH`);
      expect(p.ok && isRotating(p.value)).toBe(false);
    }
    expect(parseProxyUsername('abc123xyz_US_10081_ABCDEFGH')).toEqual({ ok: false, reason: 'invalid duration: 0 (rotating) or 1 to 10080 minutes' });
  });

  it('refuses malformed usernames with a reason', () => {
    for (const bad of [
      '',
      'abc',
      'abc123xyz_US_60',
      'ABC123XYZ_US_60_ABCDEFGH',
      'abc123xyz_us_60_ABCDEFGH',
      'abc123xyz_US_-1_ABCDEFGH',
      'abc123xyz_US_10081_ABCDEFGH',
      'abc123xyz_US_60_abcdefgh',
      'abc123xyz_US-CA-LA-X_60_ABCDEFGH',
      'abc123xyz_US_1.5_ABCDEFGH',
      'x'.repeat(200),
    ]) {
      const r = parseProxyUsername(bad);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.reason.length).toBeGreaterThan(0);
    }
  });

  it('takes ~z (ZIP) and ~a (ASN) after the location and h (hard sticky) after a sticky duration', () => {
    expect(parseProxyUsername('abc123xyz_US-CA-LOSANGELES~z90012_60_ABCDEFGH')).toEqual({
      ok: true,
      value: { proxyUserId: 'abc123xyz', location: { country: 'US', state: 'CA', city: 'LOSANGELES', zip: '90012' }, durationMinutes: 60, token: 'ABCDEFGH' },
    });
    expect(parseProxyUsername('abc123xyz_DE~a3320_0_ABCDEFGH')).toEqual({
      ok: true,
      value: { proxyUserId: 'abc123xyz', location: { country: 'DE', asn: '3320' }, durationMinutes: 0, token: 'ABCDEFGH' },
    });
    expect(parseProxyUsername('abc123xyz_US_30h_ABCDEFGH')).toEqual({
      ok: true,
      value: { proxyUserId: 'abc123xyz', location: { country: 'US' }, durationMinutes: 30, hard: true, token: 'ABCDEFGH' },
    });
    // Without modifiers: exactly the parts of before (no zip, asn or hard key at all).
    const plain = parseProxyUsername('abc123xyz_US-NY_60_ABCDEFGH');
    expect(plain.ok && Object.keys(plain.value).sort()).toEqual(['durationMinutes', 'location', 'proxyUserId', 'token']);
    expect(plain.ok && Object.keys(plain.value.location).sort()).toEqual(['city', 'country', 'state']);
    const parts = { proxyUserId: 'abc123xyz', location: { country: 'GB', zip: 'SW1A1AA', asn: '5089' }, durationMinutes: 1440, hard: true, token: 'ABCDEFGH' };
    const built = buildProxyUsername(parts);
    expect(built).toBe('abc123xyz_GB~zSW1A1AA~a5089_1440h_ABCDEFGH');
    expect(parseProxyUsername(built)).toEqual({ ok: true, value: parts });
    for (const [bad, reason] of [
      [`abc123xyz_US~z${'1'.repeat(40)}_60_ABCDEFGH`, 'invalid ZIP'],
      ['abc123xyz_US~z12_60_ABCDEFGH', 'invalid ZIP'],
      ['abc123xyz_US~z90-12_60_ABCDEFGH', 'invalid ZIP'],
      ['abc123xyz_US~aAS7922_60_ABCDEFGH', 'invalid ASN'],
      ['abc123xyz_US~a4294967296_60_ABCDEFGH', 'invalid ASN'],
      ['abc123xyz_US~z90012~z90013_60_ABCDEFGH', 'invalid location modifier'],
      ['abc123xyz_US~x1_60_ABCDEFGH', 'invalid location modifier'],
      ['abc123xyz_US_0h_ABCDEFGH', 'invalid duration: h (hard sticky) needs a sticky duration'],
      ['abc123xyz_US_30H_ABCDEFGH', 'invalid duration'],
    ] as const) {
      const r = parseProxyUsername(bad);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.reason, bad).toContain(reason);
    }
  });

  it("the generator's form takes a ZIP, an ASN and the hard mode, and refuses bad ones naming the field", () => {
    const base = { country: 'US', durationMinutes: 60, count: 1 };
    expect(generateProxiesForm.parse({ ...base, zip: ' sw1a1aa ', asn: '7922', hard: true })).toMatchObject({ zip: 'SW1A1AA', asn: '7922', hard: true });
    const issue = (input: Record<string, unknown>) => {
      const r = generateProxiesForm.safeParse({ ...base, ...input });
      return r.success ? null : { path: r.error.issues[0]!.path.join('.'), message: r.error.issues[0]!.message };
    };
    expect(issue({ zip: '1'.repeat(40) })).toEqual({ path: 'zip', message: 'ZIP / postal code: 3 to 10 letters and digits' });
    expect(issue({ asn: 'AS7922' })).toEqual({ path: 'asn', message: 'ASN: digits only, e.g. 7922' });
    expect(issue({ hard: true, durationMinutes: 0 })).toEqual({
      path: 'hard',
      message: 'Keep the same IP or fail needs a sticky duration: a rotating line gets a new IP on every connection',
    });
  });

  it('makes uniform-looking tokens of 8 A-Z0-9 characters', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const t = randomSessionToken();
      expect(t).toMatch(/^[A-Z0-9]{8}$/);
      seen.add(t);
    }
    expect(seen.size).toBe(1000);
  });
});

describe('proxy list formats', () => {
  it('formats each of the four list shapes and the two proxy URLs', () => {
    const lines = PROXY_FORMATS.map((f) => formatProxyLine(f.id, 'localhost', 3001, 'u', 'p'));
    expect(lines).toEqual([
      'localhost:3001:u:p',
      'localhost:3001@u:p',
      'u:p:localhost:3001',
      'u:p@localhost:3001',
      'http://u:p@localhost:3001',
      'socks5://u:p@localhost:3001',
    ]);
    // The URL formats are labelled with their own shape and parse as URLs with the parts in place.
    expect(PROXY_FORMATS.filter((f) => f.id.endsWith('-url')).map((f) => f.label)).toEqual([
      'http://username:password@hostname:port',
      'socks5://username:password@hostname:port',
    ]);
    for (const id of ['http-url', 'socks5-url'] as const) {
      const url = new URL(formatProxyLine(id, 'gw.example', 8080, 'abc_US_60_TOKEN123', 'Pw9'));
      expect([url.protocol, url.username, url.password, url.hostname, url.port]).toEqual([
        id === 'http-url' ? 'http:' : 'socks5:',
        'abc_US_60_TOKEN123',
        'Pw9',
        'gw.example',
        '8080',
      ]);
    }
    expect(PROXY_FORMATS.filter((f) => isSocksFormat(f.id)).map((f) => f.id)).toEqual(['socks5-url']);
  });
  it('generates 10,000 distinct proxies', () => {
    const list = generateProxies({
      proxyUserId: 'abc123xyz',
      proxyPassword: 'Pw123',
      location: { country: 'US' },
      durationMinutes: 60,
      count: 10000,
      endpoint: { host: 'localhost', port: 3001 },
    });
    expect(list).toHaveLength(10000);
    expect(new Set(list.map((p) => p.username)).size).toBe(10000);
    expect(list[0]!.formats.httpHostPort).toMatch(/^localhost:3001:abc123xyz_US_60_[A-Z0-9]{8}:Pw123$/);
    expect(list[0]!.formats.httpStandard).toBe(`http://${list[0]!.username}:Pw123@localhost:3001`);
    expect(list[0]!.formats.socks5HostPort).toBe(`socks5://${list[0]!.username}:Pw123@localhost:3001`);
  });
});
