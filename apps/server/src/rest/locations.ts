import { z } from 'zod';
import {
  citiesInput,
  statesInput,
  locationsCitiesOutput,
  locationsCountriesOutput,
  locationsCountryOutput,
  locationsSessionLimitOutput,
  locationsStatesOutput,
} from '@proxyhub/core';
import { restRoute } from './rest';

/** The spec's location paths over the locations router. */
export const locationsRoutes = [
  restRoute(
    { method: 'GET', url: '/api/locations/countries', summary: 'Countries that can be targeted.', response: z.object({ countries: locationsCountriesOutput }) },
    async (caller) => ({ countries: await caller.locations.countries() }),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/locations/countries/:country',
      summary: 'One country: its states and session limit.',
      response: locationsCountryOutput,
      params: statesInput,
    },
    (caller, input) => caller.locations.country(input),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/locations/countries/:country/states',
      summary: `A country's states.`,
      response: z.object({ states: locationsStatesOutput }),
      params: statesInput,
    },
    async (caller, input) => ({
      states: await caller.locations.states(input),
    }),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/locations/countries/:country/states/:state/cities',
      summary: `A state's cities.`,
      response: z.object({ cities: locationsCitiesOutput }),
      params: citiesInput,
    },
    async (caller, input) => ({
      cities: await caller.locations.cities(input),
    }),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/locations/countries/:country/session-limit',
      summary: 'The longest sticky session a country allows.',
      response: locationsSessionLimitOutput,
      params: statesInput,
    },
    async (caller, input) => caller.locations.sessionLimit(input),
  ),
];
