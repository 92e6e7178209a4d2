/**
 * Our location codes and the English names they stand for, from the `country-state-city` dataset.
 * The server lists them (api's locations service) and the gateway spells them for an upstream
 * (`{state|name}`), so both build the codes here, the one way, or a code would name another place.
 *
 * A subpath of its own, never re-exported by core's index: the dataset is heavy (measured on the
 * dev machine: 0.3 s to import, 0.35 s more for the first country's names, about 110 MB of memory
 * in all; each further country about 20 ms), so the gateway imports it lazily, only once some
 * upstream template uses `name`. Handing names over from the server instead would put a server
 * round trip, or a copy of every offered city, in each gateway; the lazy import costs nothing to a
 * gateway whose upstreams want codes, and one pause to one that wants names.
 * Cities are grouped by country and state in one pass the first time any are asked for (the
 * dataset's per-state lookup scans all 150 000 cities each time).
 */
import { City, Country, State } from 'country-state-city';
import type { PlaceNames } from '../upstream-template';

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

let citiesByState: Map<string, string[]> | undefined;

/** City names of one state as the dataset lists them (`US/CA` keys), grouped once. */
function cityNamesOf(country: string, stateIso: string): string[] {
  if (!citiesByState) {
    citiesByState = new Map();
    for (const c of City.getAllCities()) {
      const key = `${c.countryCode}/${c.stateCode}`;
      const list = citiesByState.get(key);
      if (list) list.push(c.name);
      else citiesByState.set(key, [c.name]);
    }
  }
  return citiesByState.get(`${country}/${stateIso}`) ?? [];
}

/**
 * One country with its codes: the states that have cities in the dataset (sorted by name), each
 * with its cities, administrative entries (counties, districts) left out. Null when unknown.
 */
export function buildCountry(iso: string): CountryOption | null {
  const c = Country.getCountryByCode(iso);
  if (!c) return null;
  const country: CountryOption = { code: iso, name: c.name, states: [] };
  const stateCodes = new Set<string>();
  const dataStates = [...State.getStatesOfCountry(iso)].sort((a, b) => a.name.localeCompare(b.name, 'en'));
  for (const s of dataStates) {
    const seen = new Set<string>();
    const cityNames = cityNamesOf(iso, s.isoCode)
      .map((n) => n.trim())
      .filter((n) => n && !NOT_A_CITY.test(n) && !seen.has(n) && seen.add(n))
      .sort((a, b) => a.localeCompare(b, 'en'));
    if (!cityNames.length) continue;
    const cityCodes = new Set<string>();
    const cities = cityNames.map((name) => ({ code: uniqueCode(codeFromName(name), cityCodes), name }));
    country.states.push({ code: uniqueCode(codeFromName(s.isoCode) || codeFromName(s.name), stateCodes), name: s.name, cities });
  }
  return country;
}

interface NamedCountry {
  name: string;
  states: Map<string, { name: string; cities: Map<string, string> }>;
}
const named = new Map<string, NamedCountry | null>();

function namedCountry(iso: string): NamedCountry | null {
  let n = named.get(iso);
  if (n === undefined) {
    const c = buildCountry(iso);
    n = c && { name: c.name, states: new Map(c.states.map((s) => [s.code, { name: s.name, cities: new Map(s.cities.map((x) => [x.code, x.name])) }])) };
    named.set(iso, n);
  }
  return n;
}

/** Codes to English names (`US` United States, `CA` California, `LOSANGELES` Los Angeles). */
export const placeNames: PlaceNames = {
  country: (country) => Country.getCountryByCode(country)?.name,
  state: (country, state) => namedCountry(country)?.states.get(state)?.name,
  city: (country, state, city) => namedCountry(country)?.states.get(state)?.cities.get(city),
};
