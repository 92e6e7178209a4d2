import { describe, expect, it } from 'vitest';
import { LOCATION_CODE_RE } from '@proxyhub/core';
import { codeFromName, datasetCountries, isKnownLocation, listCountries, LOCATION_COUNTRIES } from './locations';

describe('location codes', () => {
  it('fold names into uppercase A-Z0-9 of at most 16 characters', () => {
    expect(codeFromName('Los Angeles')).toBe('LOSANGELES');
    expect(codeFromName('Sant Julià de Lòria')).toBe('SANTJULIADELORIA');
    expect(codeFromName('Île-de-France')).toBe('ILEDEFRANCE');
    expect(codeFromName("Provence-Alpes-Côte-d'Azur")).toBe('PROVENCEALPESCOT');
    expect(codeFromName('Straße_1')).toBe('STRASSE1');
  });

  it('every listed code is usable in a proxy username and known to the gateway check', () => {
    const countries = listCountries(LOCATION_COUNTRIES);
    expect(countries.length).toBeGreaterThanOrEqual(12);
    for (const c of countries) {
      expect(c.code).toMatch(LOCATION_CODE_RE);
      expect(isKnownLocation({ country: c.code })).toBe(true);
    }
  });

  it('knows every country of the dataset (about 250), each usable in a username', () => {
    const all = datasetCountries();
    expect(all.length).toBeGreaterThanOrEqual(240);
    for (const c of all) expect(c.code).toMatch(/^[A-Z]{2}$/);
    const listed = listCountries(all.map((c) => c.code));
    expect(listed).toHaveLength(all.length);
    expect(listed.find((c) => c.code === 'PT')).toMatchObject({ name: 'Portugal', states: expect.any(Number) });
    expect(isKnownLocation({ country: 'PT' })).toBe(true);
    expect(listCountries(['XX', 'US']).map((c) => c.code)).toEqual(['US']);
  });
});
