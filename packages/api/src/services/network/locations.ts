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
import { Country } from 'country-state-city';
import { LOCATION_CODE_RE } from '@proxyhub/core';
import { buildCountry as buildCountryOption, type CityOption, type CountryOption, type StateOption } from '@proxyhub/core/places';

export { codeFromName, type CityOption, type CountryOption, type StateOption } from '@proxyhub/core/places';

export const LOCATION_COUNTRIES = ['US', 'CA', 'GB', 'DE', 'FR', 'NL', 'ES', 'IT', 'PL', 'SE', 'AU', 'JP', 'IN', 'BR', 'MX'] as const;

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

/** The codes are built in core (shared with the gateway, which spells names for upstreams). */
function buildCountry(iso: string): CountryIndex | null {
  const country = isDatasetCountry(iso) ? buildCountryOption(iso) : null;
  if (!country) return null;
  return { country, states: new Map(country.states.map((state) => [state.code, { state, cities: new Set(state.cities.map((c) => c.code)) }])) };
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

/** The given countries (the offered ones, catalogue.ts) by name, with their numbers of states and cities (the public Locations page). */
export function listCountries(codes: readonly string[]): Array<{ code: string; name: string; states: number; cities: number }> {
  return codes
    .map(countryIndex)
    .filter((c): c is CountryIndex => c !== null)
    .map((c) => ({
      code: c.country.code,
      name: c.country.name,
      states: c.country.states.length,
      cities: c.country.states.reduce((n, s) => n + s.cities.length, 0),
    }))
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
