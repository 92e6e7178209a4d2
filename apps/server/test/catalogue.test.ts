/**
 * The catalogue over HTTP: an admin reads and sets the countries sold (any code the dataset has; an
 * unknown one is a 400 naming it, nothing saved), each change is in the audit log, and
 * /api/locations lists a catalogue country only while an enabled upstream serves it or egress is
 * direct (no upstream enabled) or the gateways have a default upstream. The gateway's login check
 * refuses the others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from '@proxyhub/db';
import { adminClient, internalClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());

const DEFAULT = ['AU', 'BR', 'CA', 'DE', 'ES', 'FR', 'GB', 'IN', 'IT', 'JP', 'MX', 'NL', 'PL', 'SE', 'US'];
type Country = { code: string; name: string; states: number };

async function offered(): Promise<string[]> {
  const r = await server.client().get<{ countries: Country[] }>('/api/locations/countries');
  expect(r.status).toBe(200);
  return r.body.countries.map((c) => c.code).sort();
}

async function addUpstream(body: Record<string, unknown>): Promise<string> {
  const r = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', {
    name: 'pool',
    protocol: 'http',
    host: '127.0.0.1',
    port: 8080,
    password: 'pw',
    ...body,
    enabled: false,
  });
  expect(r.status).toBe(201);
  // Saved disabled, as every new upstream is; enabled unless the test keeps it off.
  if (body.enabled !== false) expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
  return r.body.upstream.id;
}

describe('catalogue', () => {
  it("answers today's 15 countries until an admin changes it, and they are all offered with direct egress", async () => {
    const r = await admin.get<{ countries: string[] }>('/admin/catalogue');
    expect(r).toMatchObject({ status: 200, body: { countries: expect.any(Array) } });
    expect([...r.body.countries].sort()).toEqual(DEFAULT);
    expect(await offered()).toEqual(DEFAULT);
  });

  it('sets any country the dataset has, names an unknown code in a 400 and saves nothing then, and audits each change', async () => {
    const set = await admin.request<{ countries: string[] }>('PUT', '/admin/catalogue', { countries: ['us', 'PT', 'NG', 'PT'] });
    expect(set).toMatchObject({ status: 200, body: { countries: ['NG', 'PT', 'US'] } });
    expect((await admin.get('/admin/catalogue')).body).toEqual({ countries: ['NG', 'PT', 'US'] });
    expect(await offered()).toEqual(['NG', 'PT', 'US']);
    // States and cities of a newly offered country come from the dataset.
    const states = await server.client().get<{ states: Array<{ code: string; name: string; cities: number }> }>('/api/locations/countries/PT/states');
    expect(states.status).toBe(200);
    expect(states.body.states.map((s) => s.name)).toContain('Lisbon');

    for (const [body, error] of [
      [{ countries: ['US', 'XX'] }, 'countries: unknown country code XX'],
      [{ countries: ['QQ', 'ZY', 'FR'] }, 'countries: unknown country codes QQ, ZY'],
      [{ countries: ['USA'] }, 'Countries must be two-letter country codes'],
      [{ countries: [] }, 'Choose at least one country'],
      [{ countries: 'US' }, 'Countries must be a list of country codes'],
      [{}, 'Countries must be a list of country codes'],
    ] as const) {
      const r = await admin.request('PUT', '/admin/catalogue', body);
      expect(r, JSON.stringify(body)).toMatchObject({ status: 400, body: { success: false, error } });
    }
    expect((await admin.get('/admin/catalogue')).body).toEqual({ countries: ['NG', 'PT', 'US'] });
    expect(await server.database.db.select().from(catalogue)).toHaveLength(1);

    const log = await admin.get<{ entries: Array<{ action: string; actor: string; changes: unknown }> }>('/admin/audit-log?action=admin.setCatalogue');
    expect(log.status).toBe(200);
    expect(log.body.entries[0]).toMatchObject({
      action: 'admin.setCatalogue',
      actor: expect.stringMatching(/^admin:/),
      changes: { input: { countries: ['us', 'PT', 'NG', 'PT'] } },
    });

    // Users and strangers may not read or change it.
    const { client } = await signedInUser(server);
    expect((await client.get('/admin/catalogue')).status).toBe(403);
    expect((await client.request('PUT', '/admin/catalogue', { countries: ['US'] })).status).toBe(403);
    expect((await server.client().get('/admin/catalogue')).status).toBe(401);
  });

  it('offers a catalogue country only while an enabled upstream serves it (null: all), or egress is direct', async () => {
    await admin.request('PUT', '/admin/catalogue', { countries: ['US', 'DE', 'FR', 'PT'] });
    const a = await addUpstream({ countries: ['US', 'GB'] });
    expect(await offered()).toEqual(['US']);
    // Hidden countries are unknown to the location lists too.
    expect((await server.client().get('/api/locations/countries/DE/states')).status).toBe(404);
    const b = await addUpstream({ countries: ['DE'], enabled: false });
    expect(await offered()).toEqual(['US']);
    await admin.request('PATCH', `/admin/upstreams/${b}`, { enabled: true });
    expect(await offered()).toEqual(['DE', 'US']);
    const c = await addUpstream({ countries: null });
    expect(await offered()).toEqual(['DE', 'FR', 'PT', 'US']);

    // The gateway's login check: a country not offered is an unknown location.
    const { user } = await signedInUser(server);
    await admin.request('DELETE', `/admin/upstreams/${c}`);
    const check = (country: string) =>
      internalClient(server).gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword, location: { country } });
    expect(await check('DE')).toMatchObject({ account: { ok: true }, locationKnown: true });
    expect(await check('FR')).toMatchObject({ account: { ok: true }, locationKnown: false });
    expect(await check('GB')).toMatchObject({ locationKnown: false }); // served, not in the catalogue

    // The gateways have a default upstream (GATEWAY_UPSTREAM_URL, set on the server too): it reaches
    // every country, so the whole catalogue is offered.
    server.config.defaultUpstream = true;
    try {
      expect(await offered()).toEqual(['DE', 'FR', 'PT', 'US']);
      expect(await check('FR')).toMatchObject({ locationKnown: true });
    } finally {
      server.config.defaultUpstream = false;
    }

    // No upstream enabled: direct egress, every catalogue country.
    await admin.request('PATCH', `/admin/upstreams/${a}`, { enabled: false });
    await admin.request('PATCH', `/admin/upstreams/${b}`, { enabled: false });
    expect(await offered()).toEqual(['DE', 'FR', 'PT', 'US']);
    expect(await check('FR')).toMatchObject({ locationKnown: true });
    await admin.request('DELETE', `/admin/upstreams/${a}`);
    await admin.request('DELETE', `/admin/upstreams/${b}`);
  });
});
