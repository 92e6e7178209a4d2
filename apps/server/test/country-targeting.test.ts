/**
 * What a line for a country may ask for beyond the place: `GET /api/locations/countries/:code`
 * answers whether the enabled pools serving it carry a ZIP, an ASN and a hard session (their
 * templates use {zip}, {asn}, {hard}), which the generator shows fields for. Disabled pools and
 * pools for other countries do not count; no pool at all carries none of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from './credits-helpers';
import { startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(async () => {
  await server?.close();
});

interface CountryAnswer {
  code: string;
  name: string;
  states: number;
  zip: boolean;
  asn: boolean;
  hard: boolean;
  maxSessionMinutes: number | null;
}

async function pool(name: string, usernameTemplate: string, countries: string[] | null, opts: { enabled?: boolean; passwordTemplate?: string } = {}) {
  const r = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', {
    name,
    protocol: 'http',
    host: 'provider.example.net',
    port: 8000,
    usernameTemplate,
    passwordTemplate: opts.passwordTemplate ?? '',
    password: 'pw',
    countries,
  });
  expect(r.status).toBe(201);
  if (opts.enabled !== false) expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
  return r.body.upstream.id;
}

const country = (code: string) => server.client().get<CountryAnswer>(`/api/locations/countries/${code}`);

describe('GET /api/locations/countries/:code', () => {
  it('answers { zip, asn, hard } for what the enabled pools serving the country carry', async () => {
    // No pool: direct egress ignores them, so none is offered.
    expect((await country('US')).body).toMatchObject({ code: 'US', name: 'United States', zip: false, asn: false, hard: false, maxSessionMinutes: null });

    const ids = [
      await pool('ZIP in the US', 'z-{country}[-zip-{zip}][-sid-{sid}]', ['US']),
      // Its ASN is in the password template: that counts too.
      await pool('Everywhere, hard', 'h-{country}[-sessid[_oneip{hard|flag}]-{sid}]', null, { passwordTemplate: '{password}[_asn-{asn}]' }),
      // Disabled: no customer line goes through it.
      await pool('Disabled', 'd-{country}[-zip-{zip}]', ['DE'], { enabled: false }),
    ];
    const us = await country('us');
    expect(us.status).toBe(200);
    expect(us.body).toMatchObject({ code: 'US', zip: true, asn: true, hard: true });
    expect(us.body.states).toBeGreaterThan(0);
    expect((await country('DE')).body).toMatchObject({ code: 'DE', zip: false, asn: true, hard: true });

    await admin.request('PATCH', `/admin/upstreams/${ids[1]}`, { enabled: false });
    expect((await country('US')).body).toMatchObject({ zip: true, asn: false, hard: false });
    // No enabled pool serves DE any more: it is not offered (the catalogue as the pools serve it).
    expect((await country('DE')).status).toBe(404);
    for (const id of ids) await admin.request('DELETE', `/admin/upstreams/${id}`);
  });

  it('is a 404 for a country not offered and a 400 naming the field for a malformed code', async () => {
    const unknown = await country('ZZ');
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(unknown.body)).toContain('Unknown country: ZZ');
    const bad = await country('A'.repeat(200));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('Country code is too long');
  });
});
