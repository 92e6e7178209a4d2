import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isKnownLocation } from '@proxyhub/api';
import { buildProxyUsername, LOCATION_CODE_RE, parseProxyUsername } from '@proxyhub/core';
import { startTestServer, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type Country = { code: string; name: string; states: number };
type State = { code: string; name: string; cities: number };
type City = { code: string; name: string };

describe('locations', () => {
  it('lists at least 12 countries with states and cities, codes fit inside proxy usernames', async () => {
    const anon = server.client();
    const r = await anon.get<{ countries: Country[] }>('/api/locations/countries');
    expect(r.status).toBe(200);
    const countries = r.body.countries;
    expect(countries.length).toBeGreaterThanOrEqual(12);
    expect(countries.map((c) => c.code)).toEqual(expect.arrayContaining(['US', 'GB', 'DE', 'FR', 'CA', 'AU', 'JP', 'BR', 'IN', 'NL', 'ES', 'IT']));
    for (const c of countries) {
      expect(c.code).toMatch(LOCATION_CODE_RE);
      expect(c.states).toBeGreaterThan(0);
      const s = await anon.get<{ states: State[] }>(`/api/locations/countries/${c.code}/states`);
      expect(s.status).toBe(200);
      expect(s.body.states).toHaveLength(c.states);
      expect(new Set(s.body.states.map((x) => x.code)).size).toBe(c.states);
      for (const st of s.body.states) {
        expect(st.code).toMatch(LOCATION_CODE_RE);
        expect(st.cities).toBeGreaterThan(0);
      }
    }
    const ca = (await anon.get<{ states: State[] }>('/api/locations/countries/US/states')).body.states.find((s) => s.code === 'CA');
    expect(ca).toMatchObject({ name: 'California', cities: expect.any(Number) });
    const cities = await anon.get<{ cities: City[] }>('/api/locations/countries/US/states/CA/cities');
    expect(cities.status).toBe(200);
    expect(cities.body.cities).toHaveLength(ca!.cities);
    expect(cities.body.cities).toEqual(
      expect.arrayContaining([
        { code: 'LOSANGELES', name: 'Los Angeles' },
        { code: 'SANFRANCISCO', name: 'San Francisco' },
      ]),
    );
    const codes = cities.body.cities.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.every((c) => LOCATION_CODE_RE.test(c))).toBe(true);
    // Diacritics fold into the code; the name keeps them.
    const bavaria = await anon.get<{ cities: City[] }>('/api/locations/countries/DE/states/BY/cities');
    expect(bavaria.body.cities).toEqual(
      expect.arrayContaining([
        { code: 'MUNICH', name: 'Munich' },
        { code: 'MUNSTER', name: 'Münster' },
      ]),
    );
  });

  it('answers 404 for unknown countries and states', async () => {
    const anon = server.client();
    expect(await anon.get('/api/locations/countries/XX/states')).toMatchObject({ status: 404, body: { success: false, error: 'Unknown country: XX' } });
    expect((await anon.get('/api/locations/countries/U-S/states')).status).toBe(404);
    expect(await anon.get('/api/locations/countries/US/states/ZZ/cities')).toMatchObject({ status: 404, body: { error: 'Unknown state: ZZ' } });
    expect((await anon.get('/api/locations/countries/XX/states/CA/cities')).status).toBe(404);
    expect((await anon.get(`/api/locations/countries/${'A'.repeat(200)}/states`)).status).toBe(400);
    // Case does not matter in paths.
    expect((await anon.get('/api/locations/countries/us/states/ca/cities')).status).toBe(200);
  });

  it('isKnownLocation agrees with the lists and the username format', () => {
    expect(isKnownLocation({ country: 'US' })).toBe(true);
    expect(isKnownLocation({ country: 'US', state: 'CA' })).toBe(true);
    expect(isKnownLocation({ country: 'US', state: 'CA', city: 'LOSANGELES' })).toBe(true);
    expect(isKnownLocation({ country: 'US', state: 'CA', city: 'MUNICH' })).toBe(false);
    expect(isKnownLocation({ country: 'US', city: 'LOSANGELES' })).toBe(false);
    expect(isKnownLocation({ country: 'XX' })).toBe(false);
    expect(isKnownLocation({ country: 'us' })).toBe(false);
    expect(isKnownLocation({ country: 'US', state: 'C-A' })).toBe(false);
    const parsed = parseProxyUsername(
      buildProxyUsername({ proxyUserId: 'abc123def4', location: { country: 'DE', state: 'BY', city: 'MUNSTER' }, durationMinutes: 60 }),
    );
    expect(parsed.ok && isKnownLocation(parsed.value.location)).toBe(true);
  });

  it('is served over tRPC too', async () => {
    const r = await server.client().get<{ result: { data: { json: Country[] } } }>('/trpc/locations.countries');
    expect(r.status).toBe(200);
    expect(r.body.result.data.json.length).toBeGreaterThanOrEqual(12);
  });
});
