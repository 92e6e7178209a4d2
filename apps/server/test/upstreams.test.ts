/**
 * Upstream pools over HTTP: create, list, change and delete them as an admin; the password is
 * sealed at rest and never answered; bad input is a 400 with its reason, unknown ids a 404, and
 * users, user keys and strangers are refused. Usage reported through the gateway's internal API is
 * attributed to the pool that carried it, with its cost, revenue at $0.90/GB and margin.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BYTES_PER_GB, type GatewayLogRow, type GatewayLogSession } from '@proxyhub/core';
import { upstreams } from '@proxyhub/db';
import { adminClient, expectLedgerOk, internalClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

interface Usage {
  bytes: number;
  costCents: number;
  revenueCents: number;
  marginCents: number;
}
interface UpstreamView {
  id: string;
  name: string;
  protocol: string;
  host: string;
  port: number;
  usernameTemplate: string;
  countries: string[] | null;
  weight: number;
  costPerGbCents: number;
  enabled: boolean;
  usage: Usage;
}

const valid = {
  name: 'Pool A',
  protocol: 'http',
  host: 'pool-a.example.net',
  port: 8000,
  usernameTemplate: 'cust-{country}-sess-{session}-ttl-{minutes}',
  password: 'pool-a-secret',
  countries: ['US', 'DE'],
  weight: 3,
  costPerGbCents: 40,
  enabled: false,
};

async function create(body: Record<string, unknown> = valid): Promise<UpstreamView> {
  const r = await admin.request<{ upstream: UpstreamView }>('POST', '/admin/upstreams', body);
  expect(r.status).toBe(201);
  return r.body.upstream;
}

async function list(): Promise<UpstreamView[]> {
  const r = await admin.get<{ upstreams: UpstreamView[] }>('/admin/upstreams');
  expect(r.status).toBe(200);
  return r.body.upstreams;
}

describe('upstream pools', () => {
  it('are created, listed, changed and deleted by an admin; the password is sealed and never answered', async () => {
    const made = await create();
    const { password: _password, ...shown } = valid;
    expect(made).toMatchObject({ ...shown, id: expect.any(String) });
    expect(made).not.toHaveProperty('password');
    expect(JSON.stringify(made)).not.toContain('pool-a-secret');

    const [row] = await server.database.db.select().from(upstreams).where(eq(upstreams.id, made.id));
    expect(row!.passwordEnc).not.toContain('pool-a-secret');
    expect(server.deps.secrets.decrypt(row!.passwordEnc)).toBe('pool-a-secret');

    const listed = (await list()).find((u) => u.id === made.id)!;
    expect(listed).toMatchObject({ name: 'Pool A', countries: ['US', 'DE'], usage: { bytes: 0, costCents: 0, revenueCents: 0, marginCents: 0 } });
    expect(JSON.stringify(await admin.get('/admin/upstreams'))).not.toContain('pool-a-secret');

    const patched = await admin.request<{ upstream: UpstreamView }>('PATCH', `/admin/upstreams/${made.id}`, { enabled: false, countries: null, weight: 1 });
    expect(patched.status).toBe(200);
    expect(patched.body.upstream).toMatchObject({ enabled: false, countries: null, weight: 1, name: 'Pool A', costPerGbCents: 40 });
    // The password is kept when not given, replaced when given.
    const [kept] = await server.database.db.select().from(upstreams).where(eq(upstreams.id, made.id));
    expect(server.deps.secrets.decrypt(kept!.passwordEnc)).toBe('pool-a-secret');
    await admin.request('PATCH', `/admin/upstreams/${made.id}`, { password: 'rotated' });
    const [rotated] = await server.database.db.select().from(upstreams).where(eq(upstreams.id, made.id));
    expect(server.deps.secrets.decrypt(rotated!.passwordEnc)).toBe('rotated');

    // The gateways read enabled pools only, with the password in clear (internal key).
    const forGateways = await internalClient(server).gateway.upstreams.query();
    expect(forGateways.upstreams.map((u) => u.id)).not.toContain(made.id);
    await admin.request('PATCH', `/admin/upstreams/${made.id}`, { enabled: true });
    expect((await internalClient(server).gateway.upstreams.query()).upstreams.find((u) => u.id === made.id)).toMatchObject({ password: 'rotated' });

    // A DELETE carries no JSON body, but a cross-site one is still refused.
    expect((await admin.request('DELETE', `/admin/upstreams/${made.id}`, undefined, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await list()).map((u) => u.id)).toContain(made.id);
    const del = await admin.request('DELETE', `/admin/upstreams/${made.id}`);
    expect(del).toMatchObject({ status: 200, body: { success: true, id: made.id } });
    expect((await list()).map((u) => u.id)).not.toContain(made.id);
    expect((await admin.request('DELETE', `/admin/upstreams/${made.id}`)).status).toBe(404);

    // Every change is in the audit log, the password redacted.
    const audit = await admin.get<{ entries: { action: string; target: string | null; changes: unknown }[] }>('/admin/audit-log?pageSize=50');
    const actions = audit.body.entries.filter((e) => e.action.endsWith('Upstream'));
    expect(actions.map((e) => e.action)).toEqual(expect.arrayContaining(['admin.createUpstream', 'admin.updateUpstream', 'admin.deleteUpstream']));
    expect(actions.find((e) => e.action === 'admin.deleteUpstream')!.target).toBe(`id:${made.id}`);
    expect(JSON.stringify(actions)).not.toMatch(/pool-a-secret|rotated/);
  });

  it('refuses bad input with its reason (400) and unknown ids (404)', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ protocol: 'ftp' }, "Protocol must be 'http' or 'socks5'"],
      [{ port: 0 }, 'Port must be from 1 to 65535'],
      [{ port: 65536 }, 'Port must be from 1 to 65535'],
      [{ port: 80.5 }, 'Port must be an integer from 1 to 65535'],
      [{ weight: 0 }, 'Weight must be a positive integer'],
      [{ weight: 1.5 }, 'Weight must be a positive integer'],
      [{ costPerGbCents: -1 }, 'Cost per GB must be a whole number of cents, 0 or more'],
      [{ costPerGbCents: 2.5 }, 'Cost per GB must be a whole number of cents, 0 or more'],
      [{ countries: ['us'] }, 'Countries must be upper-case two-letter codes'],
      [{ countries: ['USA'] }, 'Countries must be upper-case two-letter codes'],
      [{ countries: [] }, 'Countries must list at least one country, or be null for all'],
      [{ name: ' ' }, 'Name is required'],
      // A preset's account part left in capitals, or no password: never saved.
      [{ usernameTemplate: 'customer-USERNAME-cc-{country}' }, "Username template: replace USERNAME with your account's"],
      [{ usernameTemplate: 'brd-customer-CUSTOMER_ID-zone-ZONE' }, "Username template: replace CUSTOMER_ID with your account's"],
      [{ usernameTemplate: 'u', passwordTemplate: '{password}-ZONE' }, "Password template: replace ZONE with your account's"],
      [{ password: '' }, 'Password is required'],
      [{ password: undefined }, 'Password is required'],
      [{ enabled: true }, 'Enabled: a new upstream is saved disabled; enable it after a Test'],
      [{ maxSessionMinutes: 0 }, 'Longest session must be from 1 to 10080 minutes'],
      [{ maxSessionMinutes: 10081 }, 'Longest session must be from 1 to 10080 minutes'],
    ];
    const before = (await list()).length;
    for (const [change, error] of cases) {
      const r = await admin.request<{ error: string }>('POST', '/admin/upstreams', { ...valid, ...change });
      expect(r, JSON.stringify(change)).toMatchObject({ status: 400, body: { error } });
    }
    expect((await list()).length).toBe(before);

    const made = await create({ ...valid, name: 'Pool V' });
    const bad = await admin.request<{ error: string }>('PATCH', `/admin/upstreams/${made.id}`, { port: 70000 });
    expect(bad).toMatchObject({ status: 400, body: { error: 'Port must be from 1 to 65535' } });
    expect((await list()).find((u) => u.id === made.id)!.port).toBe(8000);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      expect((await admin.request('PATCH', `/admin/upstreams/${id}`, { weight: 2 })).status).toBe(404);
      expect((await admin.request('DELETE', `/admin/upstreams/${id}`)).status).toBe(404);
      expect((await admin.get(`/admin/upstreams/${id}/usage`)).status).toBe(404);
    }
  });

  it('is for admins only: users, user API keys and strangers are refused', async () => {
    const { client, user } = await signedInUser(server);
    const anonymous = server.client();
    const bearer = { authorization: `Bearer ${user.apiKey}` };
    for (const [c, status, headers] of [
      [client, 403, {}],
      [anonymous, 401, {}],
      [server.client(), 403, bearer],
    ] as const) {
      expect((await c.get('/admin/upstreams', headers)).status).toBe(status);
      expect((await c.request('POST', '/admin/upstreams', valid, headers)).status).toBe(status);
      expect((await c.request('PATCH', '/admin/upstreams/00000000-0000-4000-8000-000000000000', { weight: 2 }, headers)).status).toBe(status);
      expect((await c.request('DELETE', '/admin/upstreams/00000000-0000-4000-8000-000000000000', undefined, headers)).status).toBe(status);
      expect((await c.get('/admin/gateways', headers)).status).toBe(status);
    }
  });

  it('attributes reported usage to the pool that carried it: bytes, cost at its price, revenue at $0.90/GB, margin, success rate and median connect time, per day', async () => {
    const a = await create({ ...valid, name: 'Cost A', costPerGbCents: 40 });
    const b = await create({ ...valid, name: 'Cost B', costPerGbCents: 120, protocol: 'socks5' });
    const { user } = await signedInUser(server);
    const gib = Number(BYTES_PER_GB);
    // Credit for the traffic: 3 GB.
    await admin.post('/admin/users/' + user.id + '/adjust', { deltaGB: 3, reason: 'test traffic' });
    const gateway = internalClient(server).gateway;
    const { account } = await gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
    if (!account.ok) throw new Error(account.message);
    const lease = await gateway.reserveLease.mutate({ gatewayId: 'gw-cost', proxyAccountId: account.proxyAccountId, bytes: 3 * gib });
    const part = (upstreamId: string, down: number) => ({
      protocol: 'connect' as const,
      country: 'US',
      state: '',
      city: '',
      upstreamId,
      bytesUp: 0,
      bytesDown: down,
      sessions: 1,
    });
    const input = {
      gatewayId: 'gw-cost',
      seq: 1,
      items: [
        {
          leaseId: lease.leaseId!,
          bytesUp: 0,
          bytesDown: 2 * gib + gib / 2 + 1000,
          sessions: 3,
          release: true,
          parts: [part(a.id, 2 * gib), part(b.id, gib / 2), part('', 1000)],
        },
      ],
      // Pool A's connections: 2 of 3 ok, connected in 100 and 200 ms (the failed one never was); pool B's one in 30 ms.
      logSessions: [[1, user.proxyUserId, account.proxyAccountId, 'US', '', '', 'rotating', 0]] as GatewayLogSession[],
      logRows: [
        [Date.now() - 3000, 10, 'connect', 'a.example:443', 1, 0, gib, 'ok', '', '', a.id, 1, 100],
        [Date.now() - 2000, 10, 'connect', 'a.example:443', 1, 0, gib, 'ok', '', '', a.id, 2, 200],
        [Date.now() - 1000, 0, 'connect', 'a.example:443', 1, 0, 0, 'upstream_failed', 'upstream refused', '', a.id, 3, null],
        [Date.now() - 1000, 10, 'connect', 'b.example:443', 1, 0, gib / 2, 'ok', '', '', b.id, 4, 30],
      ] as GatewayLogRow[],
    };
    expect((await gateway.report.mutate(input)).applied).toBe(true);
    // A repeated report changes nothing.
    expect((await gateway.report.mutate(input)).applied).toBe(false);

    const listed = await list();
    // 2 GiB: cost 2 x 40 = 80 cents, revenue 2 x 90 = 180, margin 100.
    expect(listed.find((u) => u.id === a.id)!.usage).toEqual({ bytes: 2 * gib, costCents: 80, revenueCents: 180, marginCents: 100 });
    // 0.5 GiB at $1.20/GB: cost 60, revenue 45, margin -15.
    expect(listed.find((u) => u.id === b.id)!.usage).toEqual({ bytes: gib / 2, costCents: 60, revenueCents: 45, marginCents: -15 });

    type Quality = { okRate: number | null; p50ConnectMs: number | null };
    const daily = await admin.get<{ days: Array<{ day: string } & Usage & Quality>; quality: Quality }>(`/admin/upstreams/${a.id}/usage`);
    expect(daily.status).toBe(200);
    expect(daily.body.days).toHaveLength(30);
    expect(daily.body.days[0]).toEqual({
      day: new Date().toISOString().slice(0, 10),
      bytes: 2 * gib,
      costCents: 80,
      revenueCents: 180,
      marginCents: 100,
      okRate: 0.6667,
      p50ConnectMs: 150,
    });
    expect(daily.body.days.slice(1).every((d) => d.bytes === 0 && d.okRate === null && d.p50ConnectMs === null)).toBe(true);
    expect(daily.body.quality).toEqual({ okRate: 0.6667, p50ConnectMs: 150 });
    const other = await admin.get<{ days: Array<Quality>; quality: Quality }>(`/admin/upstreams/${b.id}/usage`);
    expect(other.body.quality).toEqual({ okRate: 1, p50ConnectMs: 30 });
  });
});

describe('no unsafe upstream', () => {
  it('saves a new upstream disabled; the gateways get it once the admin enables it', async () => {
    const made = await create({ ...valid, name: 'Fresh', usernameTemplate: 'customer-acme-cc-{country}' });
    expect(made).toMatchObject({ enabled: false });
    const forGateways = async () => (await internalClient(server).gateway.upstreams.query()).upstreams.map((u) => u.id);
    expect(await forGateways()).not.toContain(made.id);
    expect((await admin.request('PATCH', `/admin/upstreams/${made.id}`, { enabled: true })).status).toBe(200);
    expect(await forGateways()).toContain(made.id);
    await admin.request('DELETE', `/admin/upstreams/${made.id}`);
  });

  it("refuses to enable one stored with a preset's capitals or no password (400 naming the field), and leaves it disabled", async () => {
    const made = await create({ ...valid, name: 'Old preset' });
    // As saved before these checks: the preset's placeholder still in, then no password.
    await server.database.db.update(upstreams).set({ usernameTemplate: 'customer-USERNAME-cc-{country}' }).where(eq(upstreams.id, made.id));
    const r = await admin.request<{ error: string }>('PATCH', `/admin/upstreams/${made.id}`, { enabled: true });
    expect(r).toMatchObject({ status: 400, body: { error: "Username template: replace USERNAME with your account's" } });
    await server.database.db.update(upstreams).set({ usernameTemplate: 'customer-acme', passwordEnc: '' }).where(eq(upstreams.id, made.id));
    expect(await admin.request('PATCH', `/admin/upstreams/${made.id}`, { enabled: true })).toMatchObject({
      status: 400,
      body: { error: 'Password is required' },
    });
    // Fixed in the same request: accepted.
    expect((await admin.request('PATCH', `/admin/upstreams/${made.id}`, { enabled: true, password: 'now-set' })).status).toBe(200);
    const [row] = await server.database.db.select().from(upstreams).where(eq(upstreams.id, made.id));
    expect(row!.enabled).toBe(true);
    await admin.request('DELETE', `/admin/upstreams/${made.id}`);
  });

  it('warns on the row and in the cost warnings when a pool costs more per GB than a GB is sold for', async () => {
    const dear = await create({ ...valid, name: 'Dear pool', costPerGbCents: 350 });
    const cheap = await create({ ...valid, name: 'Cheap pool', costPerGbCents: 40 });
    const sentence = 'Dear pool costs $3.50 per GB, more than the $0.90 per GB it is sold for: every GB through it loses money';
    const listed = await list();
    expect(listed.find((u) => u.id === dear.id)).toMatchObject({ costWarning: sentence });
    expect(listed.find((u) => u.id === cheap.id)).toMatchObject({ costWarning: null });
    const warnings = await admin.get<{ warnings: string[] }>('/admin/cost-warnings');
    expect(warnings.status).toBe(200);
    expect(warnings.body.warnings).toContain(sentence);
    expect(warnings.body.warnings.join('\n')).not.toContain('Cheap pool');
    // A volume tier below a pool's cost: that price is named.
    expect(
      (await admin.request('PUT', '/admin/pricing', { pricePerGbCents: 90, minOrderCents: 1000, tiers: [{ minGb: 100, pricePerGbCents: 30 }] })).status,
    ).toBe(200);
    try {
      expect((await list()).find((u) => u.id === cheap.id)).toMatchObject({
        costWarning: 'Cheap pool costs $0.40 per GB, more than the $0.30 per GB it is sold for from 100 GB: every GB through it loses money',
      });
    } finally {
      await admin.request('PUT', '/admin/pricing', { pricePerGbCents: 90, minOrderCents: 1000, tiers: [] });
    }
    expect((await server.client().get('/admin/cost-warnings')).status).toBe(401);
    await admin.request('DELETE', `/admin/upstreams/${dear.id}`);
    await admin.request('DELETE', `/admin/upstreams/${cheap.id}`);
  });

  it("answers the longest session a country's enabled pools give (the shortest of them), null where none limits it", async () => {
    const limit = async (country: string) =>
      (await server.client().get<{ country: string; maxSessionMinutes: number | null }>(`/api/locations/countries/${country}/session-limit`)).body;
    const a = await create({ ...valid, name: 'Short sessions', countries: ['US'], maxSessionMinutes: 30 });
    expect(a).toMatchObject({ maxSessionMinutes: 30 });
    // Disabled: no customer line goes through it yet.
    expect(await limit('US')).toEqual({ country: 'US', maxSessionMinutes: null });
    await admin.request('PATCH', `/admin/upstreams/${a.id}`, { enabled: true });
    const b = await create({ ...valid, name: 'Day sessions', countries: null, maxSessionMinutes: 1440 });
    await admin.request('PATCH', `/admin/upstreams/${b.id}`, { enabled: true });
    expect(await limit('us')).toEqual({ country: 'US', maxSessionMinutes: 30 });
    expect(await limit('DE')).toEqual({ country: 'DE', maxSessionMinutes: 1440 });
    expect((await internalClient(server).gateway.upstreams.query()).upstreams.find((u) => u.id === a.id)).toMatchObject({ maxSessionMinutes: 30 });
    await admin.request('PATCH', `/admin/upstreams/${b.id}`, { maxSessionMinutes: null });
    expect(await limit('DE')).toEqual({ country: 'DE', maxSessionMinutes: null });
    await admin.request('DELETE', `/admin/upstreams/${a.id}`);
    await admin.request('DELETE', `/admin/upstreams/${b.id}`);
  });
});
