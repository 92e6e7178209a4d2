import type { TRPCRouterRecord } from '@trpc/server';
import { citiesInput, DomainError, statesInput } from '@proxyhub/core';
import { listCities, listCountries, listStates } from '../services/locations';
import { publicProcedure } from '../trpc';

export const locationsRouter = {
  countries: publicProcedure.query(() => listCountries()),
  states: publicProcedure.input(statesInput).query(({ input }) => {
    const states = listStates(input.country);
    if (!states) throw new DomainError('NOT_FOUND', `Unknown country: ${input.country}`);
    return states;
  }),
  cities: publicProcedure.input(citiesInput).query(({ input }) => {
    const cities = listCities(input.country, input.state);
    if (!cities) {
      throw new DomainError('NOT_FOUND', listStates(input.country) ? `Unknown state: ${input.state}` : `Unknown country: ${input.country}`);
    }
    return cities;
  }),
} satisfies TRPCRouterRecord;
