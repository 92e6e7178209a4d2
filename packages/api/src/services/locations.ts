/**
 * Countries, states and cities for the location picker and the gateway's username check, from the
 * `country-state-city` dataset, built once in memory. Codes go inside proxy usernames, so they are
 * uppercase A-Z0-9 only (no '-' or '_'), at most 16 characters, unique among their siblings.
 *
 * The cut: the countries in LOCATION_COUNTRIES; per country, the states that have cities in the
 * dataset; per state, the dataset's cities without administrative entries (counties, districts).
 * The dataset has no population, so "principal cities" is every populated place it lists.
 */
import { LOCATION_CODE_RE } from '@proxyhub/core';
import { buildCountry, type CityOption, type CountryOption, type StateOption } from '@proxyhub/core/places';

export { codeFromName, type CityOption, type CountryOption, type StateOption } from '@proxyhub/core/places';

export const LOCATION_COUNTRIES = ['US', 'CA', 'GB', 'DE', 'FR', 'NL', 'ES', 'IT', 'PL', 'SE', 'AU', 'JP', 'IN', 'BR', 'MX'] as const;

interface Index {
  countries: CountryOption[];
  byCountry: Map<string, { country: CountryOption; states: Map<string, { state: StateOption; cities: Set<string> }> }>;
}

let index: Index | undefined;

function build(): Index {
  const countries: CountryOption[] = [];
  const byCountry: Index['byCountry'] = new Map();
  for (const iso of LOCATION_COUNTRIES) {
    // The codes are built in core (shared with the gateway, which spells names for upstreams).
    const country = buildCountry(iso);
    if (!country) continue;
    countries.push(country);
    byCountry.set(iso, { country, states: new Map(country.states.map((state) => [state.code, { state, cities: new Set(state.cities.map((c) => c.code)) }])) });
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
