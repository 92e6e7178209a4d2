import { citiesInput, statesInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The spec's location paths over the locations router. */
export const locationsRoutes = [
  restRoute({ method: 'GET', url: '/api/locations/countries' }, async (caller) => ({ countries: await caller.locations.countries() })),
  restRoute({ method: 'GET', url: '/api/locations/countries/:country', params: statesInput }, (caller, input) => caller.locations.country(input)),
  restRoute({ method: 'GET', url: '/api/locations/countries/:country/states', params: statesInput }, async (caller, input) => ({
    states: await caller.locations.states(input),
  })),
  restRoute({ method: 'GET', url: '/api/locations/countries/:country/states/:state/cities', params: citiesInput }, async (caller, input) => ({
    cities: await caller.locations.cities(input),
  })),
  restRoute({ method: 'GET', url: '/api/locations/countries/:country/session-limit', params: statesInput }, async (caller, input) =>
    caller.locations.sessionLimit(input),
  ),
];
