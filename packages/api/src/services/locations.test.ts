import { describe, expect, it } from 'vitest';
import { LOCATION_CODE_RE } from '@proxyhub/core';
import { codeFromName, isKnownLocation, listCountries } from './locations';

describe('location codes', () => {
  it('fold names into uppercase A-Z0-9 of at most 16 characters', () => {
    expect(codeFromName('Los Angeles')).toBe('LOSANGELES');
    expect(codeFromName('Sant Julià de Lòria')).toBe('SANTJULIADELORIA');
    expect(codeFromName('Île-de-France')).toBe('ILEDEFRANCE');
    expect(codeFromName("Provence-Alpes-Côte-d'Azur")).toBe('PROVENCEALPESCOT');
    expect(codeFromName('Straße_1')).toBe('STRASSE1');
  });

  it('every listed code is usable in a proxy username and known to the gateway check', () => {
    const countries = listCountries();
    expect(countries.length).toBeGreaterThanOrEqual(12);
    for (const c of countries) {
      expect(c.code).toMatch(LOCATION_CODE_RE);
      expect(isKnownLocation({ country: c.code })).toBe(true);
    }
  });
});
