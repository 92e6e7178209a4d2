/**
 * Countries, states and cities for the location picker and the gateway's username check, from the
 * `country-state-city` dataset, built once in memory. Codes go inside proxy usernames, so they are
 * uppercase A-Z0-9 only (no '-' or '_'), at most 16 characters, unique among their siblings.
 *
 * The cut: the countries in LOCATION_COUNTRIES; per country, the states that have cities in the
 * dataset; per state, the dataset's cities without administrative entries (counties, districts).
 * The dataset has no population, so "principal cities" is every populated place it lists.
 */
import { City, Country, State } from 'country-state-city';
import { LOCATION_CODE_RE } from '@proxyhub/core';

export const LOCATION_COUNTRIES = ['US', 'CA', 'GB', 'DE', 'FR', 'NL', 'ES', 'IT', 'PL', 'SE', 'AU', 'JP', 'IN', 'BR', 'MX'] as const;

export interface CityOption {
  code: string;
  name: string;
}
export interface StateOption {
  code: string;
  name: string;
  cities: CityOption[];
}
export interface CountryOption {
  code: string;
  name: string;
  states: StateOption[];
}

const MAX_CODE = 16;
/** Administrative areas the dataset lists among its cities. */
const NOT_A_CITY = /\b(county|district|municipality|province|prefecture|region|borough|parish|census area|kreis|landkreis|regierungsbezirk)\b/i;

/** A name to a code: diacritics folded, uppercase A-Z0-9 only, at most 16 characters. */
export function codeFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'SS')
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, MAX_CODE);
}

/** Makes `code` unique within `taken` by replacing its tail with a number (deterministic in input order). */
function uniqueCode(code: string, taken: Set<string>): string {
  let c = code || 'X';
  for (let i = 2; taken.has(c); i++) {
    const suffix = String(i);
    c = (code || 'X').slice(0, MAX_CODE - suffix.length) + suffix;
  }
  taken.add(c);
  return c;
}

interface Index {
  countries: CountryOption[];
  byCountry: Map<string, { country: CountryOption; states: Map<string, { state: StateOption; cities: Set<string> }> }>;
}

let index: Index | undefined;

function build(): Index {
  const countries: CountryOption[] = [];
  const byCountry: Index['byCountry'] = new Map();
  for (const iso of LOCATION_COUNTRIES) {
    const c = Country.getCountryByCode(iso);
    if (!c) continue;
    const country: CountryOption = { code: iso, name: c.name, states: [] };
    const states = new Map<string, { state: StateOption; cities: Set<string> }>();
    const stateCodes = new Set<string>();
    const dataStates = [...State.getStatesOfCountry(iso)].sort((a, b) => a.name.localeCompare(b.name, 'en'));
    for (const s of dataStates) {
      const seen = new Set<string>();
      const cityNames = City.getCitiesOfState(iso, s.isoCode)
        .map((x) => x.name.trim())
        .filter((n) => n && !NOT_A_CITY.test(n) && !seen.has(n) && seen.add(n))
        .sort((a, b) => a.localeCompare(b, 'en'));
      if (!cityNames.length) continue;
      const cityCodes = new Set<string>();
      const cities = cityNames.map((name) => ({ code: uniqueCode(codeFromName(name), cityCodes), name }));
      const state: StateOption = { code: uniqueCode(codeFromName(s.isoCode) || codeFromName(s.name), stateCodes), name: s.name, cities };
      country.states.push(state);
      states.set(state.code, { state, cities: cityCodes });
    }
    if (!country.states.length) continue;
    countries.push(country);
    byCountry.set(iso, { country, states });
  }
  countries.sort((a, b) => a.name.localeCompare(b.name, 'en'));
  return { countries, byCountry };
}

function locations(): Index {
  index ??= build();
  return index;
}

export function listCountries(): Array<{ code: string; name: string; states: number }> {
  return locations().countries.map((c) => ({ code: c.code, name: c.name, states: c.states.length }));
}

/** States of a country, or null when the country is unknown. */
export function listStates(country: string): Array<{ code: string; name: string; cities: number }> | null {
  const c = locations().byCountry.get(country.toUpperCase());
  return c ? c.country.states.map((s) => ({ code: s.code, name: s.name, cities: s.cities.length })) : null;
}

/** Cities of a state, or null when the country or state is unknown. */
export function listCities(country: string, state: string): CityOption[] | null {
  const s = locations().byCountry.get(country.toUpperCase())?.states.get(state.toUpperCase());
  return s ? s.state.cities : null;
}

/** For the gateway: is this COUNTRY[-STATE[-CITY]] one we list? Synchronous, in memory, exact codes. */
export function isKnownLocation(loc: { country: string; state?: string | undefined; city?: string | undefined }): boolean {
  const codes = [loc.country, loc.state, loc.city].filter((c): c is string => c !== undefined);
  if (!codes.every((c) => LOCATION_CODE_RE.test(c))) return false;
  if (loc.city !== undefined && loc.state === undefined) return false;
  const c = locations().byCountry.get(loc.country);
  if (!c) return false;
  if (loc.state === undefined) return true;
  const s = c.states.get(loc.state);
  if (!s) return false;
  return loc.city === undefined || s.cities.has(loc.city);
}

/** Builds the index now (start-up) instead of on the first request. */
export function loadLocations(): void {
  locations();
}
