/**
 * Countries, states and cities for the location picker and the gateway's username check, from the
 * `country-state-city` dataset, built once in memory. Codes go inside proxy usernames, so they are
 * uppercase A-Z0-9 only (no '-' or '_'), at most 16 characters, unique among their siblings.
 *
 * The cut: any country of the dataset (which ones are offered is the operator's catalogue,
 * catalogue.ts; LOCATION_COUNTRIES is its default); per country, the states that have cities in the
 * dataset; per state, the dataset's cities without administrative entries (counties, districts).
 * The dataset has no population, so "principal cities" is every populated place it lists. Each
 * country is indexed on first use (the dataset has about 250).
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

interface CountryIndex {
  country: CountryOption;
  states: Map<string, { state: StateOption; cities: Set<string> }>;
}

/** Per ISO code: its index, or null when the dataset does not know the code. */
const index = new Map<string, CountryIndex | null>();

/** Whether the dataset knows this ISO 3166-1 alpha-2 code (upper-case). */
export function isDatasetCountry(iso: string): boolean {
  return /^[A-Z]{2}$/.test(iso) && Country.getCountryByCode(iso) !== undefined;
}

/** Every country the dataset has, by name: what an operator may put in the catalogue. */
export function datasetCountries(): Array<{ code: string; name: string }> {
  return Country.getAllCountries()
    .map((c) => ({ code: c.isoCode, name: c.name }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en'));
}

let cityNamesByState: Map<string, string[]> | undefined;

/** The dataset's city names by country and state, grouped in one pass (its own lookup scans all cities each call). */
function citiesOfState(): Map<string, string[]> {
  if (!cityNamesByState) {
    cityNamesByState = new Map();
    for (const c of City.getAllCities()) {
      const key = `${c.countryCode}\0${c.stateCode}`;
      const list = cityNamesByState.get(key);
      if (list) list.push(c.name);
      else cityNamesByState.set(key, [c.name]);
    }
  }
  return cityNamesByState;
}

function buildCountry(iso: string): CountryIndex | null {
  const c = isDatasetCountry(iso) ? Country.getCountryByCode(iso) : undefined;
  if (!c) return null;
  const country: CountryOption = { code: iso, name: c.name, states: [] };
  const states = new Map<string, { state: StateOption; cities: Set<string> }>();
  const stateCodes = new Set<string>();
  const dataStates = [...State.getStatesOfCountry(iso)].sort((a, b) => a.name.localeCompare(b.name, 'en'));
  for (const s of dataStates) {
    const seen = new Set<string>();
    const cityNames = (citiesOfState().get(`${iso}\0${s.isoCode}`) ?? [])
      .map((n) => n.trim())
      .filter((n) => n && !NOT_A_CITY.test(n) && !seen.has(n) && seen.add(n))
      .sort((a, b) => a.localeCompare(b, 'en'));
    if (!cityNames.length) continue;
    const cityCodes = new Set<string>();
    const cities = cityNames.map((name) => ({ code: uniqueCode(codeFromName(name), cityCodes), name }));
    const state: StateOption = { code: uniqueCode(codeFromName(s.isoCode) || codeFromName(s.name), stateCodes), name: s.name, cities };
    country.states.push(state);
    states.set(state.code, { state, cities: cityCodes });
  }
  return { country, states };
}

function countryIndex(iso: string): CountryIndex | null {
  const key = iso.toUpperCase();
  let c = index.get(key);
  if (c === undefined) {
    c = buildCountry(key);
    // Unknown codes come from clients: not remembered (the map stays bounded by the dataset).
    if (c) index.set(key, c);
  }
  return c;
}

/** The given countries (the offered ones, catalogue.ts) by name, with their number of states. */
export function listCountries(codes: readonly string[]): Array<{ code: string; name: string; states: number }> {
  return codes
    .map(countryIndex)
    .filter((c): c is CountryIndex => c !== null)
    .map((c) => ({ code: c.country.code, name: c.country.name, states: c.country.states.length }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en'));
}

/** States of a country, or null when the country is unknown. */
export function listStates(country: string): Array<{ code: string; name: string; cities: number }> | null {
  const c = countryIndex(country);
  return c ? c.country.states.map((s) => ({ code: s.code, name: s.name, cities: s.cities.length })) : null;
}

/** Cities of a state, or null when the country or state is unknown. */
export function listCities(country: string, state: string): CityOption[] | null {
  const s = countryIndex(country)?.states.get(state.toUpperCase());
  return s ? s.state.cities : null;
}

/** For the gateway: is this COUNTRY[-STATE[-CITY]] one we list? Synchronous, in memory, exact codes. */
export function isKnownLocation(loc: { country: string; state?: string | undefined; city?: string | undefined }): boolean {
  const codes = [loc.country, loc.state, loc.city].filter((c): c is string => c !== undefined);
  if (!codes.every((c) => LOCATION_CODE_RE.test(c))) return false;
  if (loc.city !== undefined && loc.state === undefined) return false;
  const c = countryIndex(loc.country);
  if (!c) return false;
  if (loc.state === undefined) return true;
  const s = c.states.get(loc.state);
  if (!s) return false;
  return loc.city === undefined || s.cities.has(loc.city);
}

/** Builds the default countries' index now (start-up) instead of on the first request. */
export function loadLocations(): void {
  for (const iso of LOCATION_COUNTRIES) countryIndex(iso);
}
