/**
 * Provider presets through real sockets: for each preset, a fake provider on loopback that parses
 * credentials in that provider's own documented grammar (written here independently of our
 * templates) and refuses anything else. Lines for a country, a state and a city, sticky, go through
 * a real gateway to a pool made from the preset; a rotating line goes through the admin's upstream
 * test, which renders and dials exactly as the gateway does.
 */
import { connect, type AddressInfo } from 'node:net';
import { loadLocations } from '@proxyhub/api';
import { UPSTREAM_PRESETS, type UpstreamPreset } from '@proxyhub/core';
import { Server as ProxyChainServer } from 'proxy-chain';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fillTemplate } from '../src/egress';
import { createLogger } from '../src/log';
import type { Gateway } from '../src/gateway';
import { StickySessions } from '../src/sessions';
import {
  adminClient,
  connectTunnel,
  exchangeUntilClosed,
  startGateway,
  startTestServer,
  startTarget,
  userWithCredits,
  type HttpClient,
  type ProxyUser,
  type TestServer,
} from './helpers';

const MiB = 1024 * 1024;
let server: TestServer;
let admin: HttpClient;
let target: Awaited<ReturnType<typeof startTarget>>;
let user: ProxyUser;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  loadLocations();
  server = await startTestServer();
  admin = await adminClient(server);
  target = await startTarget();
  user = await userWithCredits(server, 50n * BigInt(MiB));
});
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  const r = await admin.get<{ upstreams: { id: string }[] }>('/admin/upstreams');
  for (const u of r.body.upstreams) await admin.request('DELETE', `/admin/upstreams/${u.id}`);
});
afterAll(async () => {
  await target?.close();
  await server?.close();
});

/** What a provider read from the credentials: location as it spells it, and the session if any. */
interface Parsed {
  country: string;
  state?: string;
  city?: string;
  session?: string;
  /** The session's duration in the provider's unit, as written. */
  duration?: string;
  zip?: string;
  asn?: string;
  /** The provider's own hard-session mark, as written. */
  hard?: string;
}

interface FakeProvider {
  /** The account part of the preset's templates, as the admin fills it in. */
  account: Record<string, string>;
  password: string;
  parse(username: string, password: string): Parsed | null;
  /** What it should read for US / California / Los Angeles, sticky 10 minutes. */
  spelled: { country: string; state: string; city: string; duration: string };
}

const groups = (m: RegExpExecArray | null): Parsed | null => {
  if (!m?.groups) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.groups)) if (v !== undefined) out[k] = v;
  return out as unknown as Parsed;
};

/** Each provider's grammar, from its documentation (see the presets' `docs`). */
const PROVIDERS: Record<string, FakeProvider> = {
  oxylabs: {
    account: { USERNAME: 'acct1' },
    password: 'oxy-pw',
    parse: (u, p) =>
      p === 'oxy-pw'
        ? groups(
            /^customer-acct1-cc-(?<country>[A-Z]{2})(?:-st-us_(?<state>[a-z_]+))?(?:-city-(?<city>[a-z_]+))?(?:-postalcode-(?<zip>\d{5}))?(?:-sessid(?<hard>_oneip)?-(?<session>[a-z0-9]+)-sesstime-(?<duration>\d+))?$/.exec(
              u,
            ),
          )
        : null,
    spelled: { country: 'US', state: 'california', city: 'los_angeles', duration: '10' },
  },
  brightdata: {
    account: { CUSTOMER_ID: 'c123', ZONE: 'residential1' },
    password: 'brd-pw',
    parse: (u, p) =>
      p === 'brd-pw'
        ? groups(
            /^brd-customer-c123-zone-residential1-country-(?<country>[a-z]{2})(?:-state-(?<state>[a-z]{2}))?(?:-city-(?<city>[a-z]+))?(?:-zip-(?<zip>\d{5}))?(?:-asn-(?<asn>\d+))?(?:-session-(?<session>[a-z0-9]+)(?<hard>-const)?)?$/.exec(
              u,
            ),
          )
        : null,
    spelled: { country: 'us', state: 'ca', city: 'losangeles', duration: '' },
  },
  decodo: {
    account: { USERNAME: 'acct1' },
    password: 'dec-pw',
    parse: (u, p) =>
      p === 'dec-pw'
        ? groups(
            /^user-acct1-country-(?<country>[a-z]{2})(?:-state-us_(?<state>[a-z_]+))?(?:-city-(?<city>[a-z_]+))?(?:-session-(?<session>[a-z0-9]+)-sessionduration-(?<duration>\d+))?$/.exec(
              u,
            ),
          )
        : null,
    spelled: { country: 'us', state: 'california', city: 'los_angeles', duration: '10' },
  },
  iproyal: {
    account: { USERNAME: 'acct1' },
    password: 'ipr-secret',
    parse: (u, p) =>
      u === 'acct1'
        ? groups(
            /^ipr-secret_country-(?<country>[a-z]{2})(?:_state-(?<state>[a-z]+))?(?:_city-(?<city>[a-z]+))?(?:_session-(?<session>[a-z0-9]{8})_lifetime-(?<duration>\d+m))?$/.exec(
              p,
            ),
          )
        : null,
    spelled: { country: 'us', state: 'california', city: 'losangeles', duration: '10m' },
  },
  evomi: {
    account: { USERNAME: 'acct1' },
    password: 'evo-pw',
    // Everything in the password; a hard session is `_hardsession-<id>` and takes no lifetime.
    parse: (u, p) => {
      const m =
        u === 'acct1'
          ? /^evo-pw_country-(?<country>[A-Z]{2})(?:_region-(?<state>[a-z.]+))?(?:_city-(?<city>[a-z.]+))?(?:_zip-(?<zip>[A-Z0-9]+))?(?:_asn-(?<asn>\d+))?(?:_hardsession-(?<hardSession>[a-z0-9]{6,10})|_session-(?<session>[a-z0-9]{6,10})_lifetime-(?<duration>\d+))?$/.exec(
              p,
            )
          : null;
      const parsed = groups(m);
      const hardSession = m?.groups?.hardSession;
      if (!parsed || !hardSession) return parsed;
      const { hardSession: _id, ...rest } = parsed as Parsed & { hardSession: string };
      return { ...rest, session: hardSession, hard: 'hardsession' };
    },
    spelled: { country: 'US', state: 'california', city: 'los.angeles', duration: '10' },
  },
  soax: {
    account: { PACKAGE_ID: '12345' },
    password: 'soax-key',
    parse: (u, p) =>
      p === 'soax-key'
        ? groups(
            /^package-12345-country-(?<country>[a-z]{2})(?:-region-(?<state>[a-z+]+))?(?:-city-(?<city>[a-z+]+))?(?:-sessionid-(?<session>[a-z0-9]+)-sessionlength-(?<duration>\d+))?$/.exec(
              u,
            ),
          )
        : null,
    spelled: { country: 'us', state: 'california', city: 'los+angeles', duration: '600' },
  },
};

/** An HTTP CONNECT provider on loopback: refuses (407) credentials its grammar does not parse. */
async function startFakeProvider(provider: FakeProvider) {
  const seen: Array<{ username: string; password: string; parsed: Parsed | null }> = [];
  const chain = new ProxyChainServer({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ username, password }) => {
      const parsed = provider.parse(username, password);
      seen.push({ username, password, parsed });
      return { requestAuthentication: parsed === null };
    },
  });
  await chain.listen();
  cleanups.push(() => chain.close(true));
  return { port: chain.port, seen };
}

function fillAccount(template: string, account: Record<string, string>): string {
  let out = template;
  for (const [k, v] of Object.entries(account)) out = out.replaceAll(k, v);
  return out;
}

async function poolFromPreset(preset: UpstreamPreset, provider: FakeProvider, port: number) {
  const r = await admin.request<{ upstream: { id: string; usernameTemplate: string; passwordTemplate: string } }>('POST', '/admin/upstreams', {
    name: preset.label,
    protocol: preset.protocol,
    host: '127.0.0.1',
    port,
    usernameTemplate: fillAccount(preset.usernameTemplate, provider.account),
    passwordTemplate: preset.passwordTemplate,
    password: provider.password,
    maxSessionMinutes: preset.maxSessionMinutes,
  });
  expect(r.status).toBe(201);
  // Saved disabled, as every new upstream is: enabled as the admin would after a Test.
  expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
  return r.body.upstream;
}

async function through(gw: Gateway, username: string): Promise<boolean> {
  const s = await connectTunnel((gw.server.address() as AddressInfo).port, target.port, username, user.proxyPassword);
  let body = '';
  s.on('data', (d: Buffer) => (body += d.toString('latin1')));
  await exchangeUntilClosed(s, 'GET /hello HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n');
  return body.includes('hello from target');
}

describe('provider presets', () => {
  it('covers Oxylabs, Bright Data, Decodo, IPRoyal, Evomi and SOAX, each with its documentation', () => {
    expect(UPSTREAM_PRESETS.map((p) => p.id)).toEqual(Object.keys(PROVIDERS));
    for (const p of UPSTREAM_PRESETS) expect(p.docs.length).toBeGreaterThan(0);
  });

  for (const preset of UPSTREAM_PRESETS) {
    it(`${preset.label}: country, state and city lines, sticky through the gateway and rotating through the test, in the provider's grammar`, async () => {
      const provider = PROVIDERS[preset.id]!;
      const fake = await startFakeProvider(provider);
      const pool = await poolFromPreset(preset, provider, fake.port);
      const gw = await startGateway(server, { upstreams: { refreshMs: 150, random: Math.random }, connectTimeoutMs: 2000 });
      cleanups.push(() => gw.close());

      const sp = provider.spelled;
      const lines = [
        { loc: { country: 'US' }, want: { country: sp.country } },
        { loc: { country: 'US', state: 'CA' }, want: { country: sp.country, state: sp.state } },
        { loc: { country: 'US', state: 'CA', city: 'LOSANGELES' }, want: { country: sp.country, state: sp.state, city: sp.city } },
      ];
      for (const [i, line] of lines.entries()) {
        const tok = `PRESET0${i}`;
        // Twice: a sticky line keeps its session id.
        expect(await through(gw, user.username(line.loc, 10, tok))).toBe(true);
        expect(await through(gw, user.username(line.loc, 10, tok))).toBe(true);
      }
      const parsed = fake.seen.map((s) => s.parsed);
      expect(parsed.every((p) => p !== null)).toBe(true);
      for (const [i, line] of lines.entries()) {
        const [a, b] = [parsed[2 * i]!, parsed[2 * i + 1]!];
        expect(a).toMatchObject(line.want);
        expect(a.state).toBe((line.want as { state?: string }).state);
        expect(a.city).toBe((line.want as { city?: string }).city);
        expect(a.session).toMatch(/^[a-z0-9]{8}$/);
        expect(b.session).toBe(a.session);
        if (sp.duration) expect(a.duration).toBe(sp.duration);
      }
      // Different lines, different sessions.
      expect(new Set(parsed.map((p) => p!.session)).size).toBe(3);

      // The admin's test: rotating (no session at all) and sticky, through the same provider.
      const rotating = await admin.request<{ ok: boolean; status: number; username: string; body: string }>('POST', `/admin/upstreams/${pool.id}/test`, {
        country: 'US',
        state: 'CA',
        city: 'LOSANGELES',
        minutes: 0,
        url: `${target.url}/hello`,
      });
      expect(rotating.status).toBe(200);
      expect(rotating.body).toMatchObject({ ok: true, status: 200, body: 'hello from target\n' });
      const last = fake.seen.at(-1)!;
      expect(last.parsed).toMatchObject({ country: sp.country, state: sp.state, city: sp.city });
      expect(last.parsed!.session).toBeUndefined();
      expect(rotating.body.username).toBe(last.username);
      expect(JSON.stringify(rotating.body)).not.toContain(provider.password);
    });
  }

  it("sends a line longer than the provider's longest session with the provider's longest (Oxylabs: 30 minutes)", async () => {
    const preset = UPSTREAM_PRESETS.find((p) => p.id === 'oxylabs')!;
    const provider = PROVIDERS.oxylabs!;
    const fake = await startFakeProvider(provider);
    await poolFromPreset(preset, provider, fake.port);
    const gw = await startGateway(server, { upstreams: { refreshMs: 150, random: Math.random }, connectTimeoutMs: 2000 });
    cleanups.push(() => gw.close());
    // A 7-day line and a 20-minute one: the first asks for 30 minutes, the second for its own 20.
    expect(await through(gw, user.username({ country: 'US' }, 10080, 'WEEKLONG'))).toBe(true);
    expect(await through(gw, user.username({ country: 'US' }, 20, 'SHORTONE'))).toBe(true);
    expect(fake.seen.map((x) => x.parsed?.duration)).toEqual(['30', '20']);
    expect(fake.seen[0]!.username).toMatch(/^customer-acct1-cc-US-sessid-[a-z0-9]{8}-sesstime-30$/);
  });

  for (const [id, line, want] of [
    ['oxylabs', 'US-CA-LOSANGELES~z90012', { zip: '90012', hard: '_oneip', duration: '30' }],
    ['brightdata', 'US~z90012~a7922', { zip: '90012', asn: '7922', hard: '-const' }],
    ['evomi', 'US~z90012~a7922', { zip: '90012', asn: '7922', hard: 'hardsession' }],
  ] as const) {
    it(`${id}: a ZIP${id === 'oxylabs' ? '' : ' and ASN'} line, hard sticky, in the provider's own words`, async () => {
      const preset = UPSTREAM_PRESETS.find((p) => p.id === id)!;
      const provider = PROVIDERS[id]!;
      const fake = await startFakeProvider(provider);
      await poolFromPreset(preset, provider, fake.port);
      const gw = await startGateway(server, { upstreams: { refreshMs: 150, random: Math.random }, connectTimeoutMs: 2000 });
      cleanups.push(() => gw.close());
      expect(await through(gw, `${user.proxyUserId}_${line}_30h_HARDZIP1`)).toBe(true);
      expect(await through(gw, `${user.proxyUserId}_${line}_30_SOFTZIP1`)).toBe(true);
      const [hard, soft] = fake.seen.map((x) => x.parsed);
      expect(hard).toMatchObject(want);
      const { hard: _mark, ...place } = want;
      expect(soft).toMatchObject(place);
      expect(soft!.hard).toBeUndefined();
    });
  }

  it("the admin's test asks as a ZIP, ASN and hard line would, and refuses what the pool's templates cannot carry", async () => {
    const provider = PROVIDERS.evomi!;
    const fake = await startFakeProvider(provider);
    const pool = await poolFromPreset(
      UPSTREAM_PRESETS.find((p) => p.id === 'evomi')!,
      provider,
      fake.port,
    );
    const test = (body: Record<string, unknown>, id = pool.id) =>
      admin.request<{ ok?: boolean; username?: string; error?: string }>('POST', `/admin/upstreams/${id}/test`, { url: `${target.url}/hello`, ...body });
    const hard = await test({ country: 'US', zip: '90012', asn: '7922', hard: true, minutes: 30 });
    expect(hard.status).toBe(200);
    expect(hard.body.ok).toBe(true);
    expect(fake.seen.at(-1)!.parsed).toMatchObject({ country: 'US', zip: '90012', asn: '7922', hard: 'hardsession' });
    expect(fake.seen.at(-1)!.parsed!.duration).toBeUndefined();
    const soft = await test({ country: 'US', zip: '90012', minutes: 30 });
    expect(fake.seen.at(-1)!.parsed).toMatchObject({ zip: '90012', duration: '30' });
    expect(soft.body.ok).toBe(true);

    // Bad input names its field; a rotating hard test is refused as the generator refuses it.
    expect(await test({ country: 'US', zip: 'X'.repeat(40) })).toMatchObject({ status: 400, body: { error: 'ZIP / postal code: 3 to 10 letters and digits' } });
    expect(await test({ country: 'US', asn: 'AS7922' })).toMatchObject({ status: 400, body: { error: 'ASN: digits only, e.g. 7922' } });
    expect((await test({ country: 'US', hard: true, minutes: 0 })).status).toBe(400);

    // Decodo's preset carries none of the three: its test says so rather than drop them silently.
    const decodo = PROVIDERS.decodo!;
    const other = await poolFromPreset(
      UPSTREAM_PRESETS.find((p) => p.id === 'decodo')!,
      decodo,
      (await startFakeProvider(decodo)).port,
    );
    expect(await test({ country: 'US', zip: '90012', hard: true, minutes: 30 }, other.id)).toMatchObject({
      status: 400,
      body: { error: 'This upstream cannot carry ZIP or hard sticky: its templates do not use {zip} or {hard}' },
    });
  });

  it('renders username and password templates for every tunnel: a sticky city line as the example spells it', async () => {
    const provider: FakeProvider = {
      account: {},
      password: 'pw',
      parse: (u, p) =>
        groups(/^acct-(?<country>[a-z]{2})-st-(?<state>[a-z_]+)-city-(?<city>[a-z_]+)-sid-(?<session>[a-z0-9]{8})-for-(?<duration>\d+)$/.exec(u)) &&
        (p === 'pw_life-600s' ? { country: 'ok' } : null),
      spelled: { country: '', state: '', city: '', duration: '' },
    };
    const fake = await startFakeProvider(provider);
    const r = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', {
      name: 'Example',
      protocol: 'http',
      host: '127.0.0.1',
      port: fake.port,
      usernameTemplate: 'acct-{country|lower}[-st-{state|name|lower|snake}][-city-{city|name|lower|snake}][-sid-{sid}-for-{minutes}]',
      passwordTemplate: '{password}[_life-{seconds}s]',
      password: 'pw',
    });
    expect(r.status).toBe(201);
    expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
    const gw = await startGateway(server, { upstreams: { refreshMs: 150, random: Math.random }, connectTimeoutMs: 2000 });
    cleanups.push(() => gw.close());
    expect(await through(gw, user.username({ country: 'US', state: 'CA', city: 'LOSANGELES' }, 10, 'EXAMPLE1'))).toBe(true);
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]!.username).toMatch(/^acct-us-st-california-city-los_angeles-sid-[a-z0-9]{8}-for-10$/);
    expect(fake.seen[0]!.password).toBe('pw_life-600s');
  });

  it('a gateway without private egress will not dial an upstream on a private address (checked after resolution)', async () => {
    const provider = PROVIDERS.oxylabs!;
    const preset = UPSTREAM_PRESETS[0]!;
    for (const host of ['127.0.0.1', 'localhost']) {
      const fake = await startFakeProvider(provider);
      const pool = await poolFromPreset(preset, provider, fake.port);
      await admin.request('PATCH', `/admin/upstreams/${pool.id}`, { host });
      const logLines: Array<Record<string, unknown>> = [];
      const gw = await startGateway(server, {
        allowPrivate: false,
        upstreams: { refreshMs: 150, random: Math.random },
        connectTimeoutMs: 2000,
        logger: createLogger('info', (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>)),
      });
      try {
        // A public name: the upstream would resolve it; the upstream's own address is what is refused.
        const s = connect({ host: '127.0.0.1', port: (gw.server.address() as AddressInfo).port });
        let head = '';
        s.on('data', (d: Buffer) => (head += d.toString('latin1')));
        const auth = Buffer.from(`${user.username({ country: 'US' }, 10, 'PRIVATE1')}:${user.proxyPassword}`).toString('base64');
        await exchangeUntilClosed(s, `CONNECT example.com:443 HTTP/1.1\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`);
        // The customer is told the exit is unavailable (never where our provider is); the operator's log says why.
        expect(head).toMatch(/^HTTP\/1\.1 502 /);
        expect(head).toContain('No exit could be reached for US');
        expect(head).not.toContain(host);
        expect(logLines).toContainEqual(
          expect.objectContaining({ msg: 'upstream failed', reason: expect.stringContaining(`Upstream ${host} is a private address`) }),
        );
        expect(fake.seen).toHaveLength(0);
      } finally {
        await gw.close();
      }
      await admin.request('DELETE', `/admin/upstreams/${pool.id}`);
    }
  });

  it('gives a sticky line one 8-character {sid} for its duration, a new one after, and none to a rotating line', () => {
    const sticky = new StickySessions('secret');
    const t0 = 1_800_000_000_000;
    const req = (token: string, minutes: number, now: number) => {
      const line = sticky.session('abcdef1234', token, minutes, now);
      return { host: 'x', port: 1, location: { country: 'US' }, token, durationMinutes: minutes, session: line.id, sid: line.sid };
    };
    const start = sticky.session('abcdef1234', 'TOKENAAA', 10, t0).endsAt;
    const first = fillTemplate('{sid}', req('TOKENAAA', 10, start));
    expect(first).toMatch(/^[a-z0-9]{8}$/);
    expect(fillTemplate('{sid}', req('TOKENAAA', 10, start + 9 * 60_000))).toBe(first);
    expect(fillTemplate('{sid}', req('TOKENAAA', 10, start + 10 * 60_000 + 1))).not.toBe(first);
    expect(fillTemplate('{sid}', req('TOKENBBB', 10, start))).not.toBe(first);
    expect(fillTemplate('u-{country}[-s-{sid}-{minutes}]', req('TOKENAAA', 0, t0))).toBe('u-US');
  });

  it('the fake providers refuse credentials not in their grammar', () => {
    expect(PROVIDERS.oxylabs!.parse('customer-acct1-cc-US-city-Los Angeles', 'oxy-pw')).toBeNull();
    expect(PROVIDERS.brightdata!.parse('brd-customer-c123-zone-residential1-country-US', 'brd-pw')).toBeNull();
    expect(PROVIDERS.decodo!.parse('user-acct1-country-us-session-abc', 'dec-pw')).toBeNull();
    expect(PROVIDERS.iproyal!.parse('acct1', 'ipr-secret_country-us_session-abc_lifetime-10m')).toBeNull();
    expect(PROVIDERS.soax!.parse('package-12345-country-us-city-los angeles', 'soax-key')).toBeNull();
  });
});
