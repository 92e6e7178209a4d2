import type { TRPCRouterRecord } from '@trpc/server';
import {
  citiesInput,
  DomainError,
  statesInput,
  locationsCountriesOutput,
  locationsCountryOutput,
  locationsStatesOutput,
  locationsCitiesOutput,
  locationsSessionLimitOutput,
} from '@proxyhub/core';
import { offeredCountries } from '../services/network/catalogue';
import { listCities, listCountries, listStates } from '../services/network/locations';
import { countryOffer, sessionLimitFor } from '../services/network/upstreams';
import { publicProcedure } from '../trpc';

/** Only the countries offered now (the catalogue, as the upstreams serve it); the rest are unknown here. */
export const locationsRouter = {
  countries: publicProcedure.output(locationsCountriesOutput).query(async ({ ctx }) => listCountries([...(await offeredCountries(ctx.db, ctx.deps.config))])),
  /** One offered country: its name and counts, and what its lines may ask for (ZIP, ASN, hard sticky) through the pools serving it. */
  country: publicProcedure
    .input(statesInput)
    .output(locationsCountryOutput)
    .query(async ({ ctx, input }) => {
      const code = input.country.toUpperCase();
      const offered = await offeredCountries(ctx.db, ctx.deps.config);
      const [listed] = offered.has(code) ? listCountries([code]) : [];
      if (!listed) throw new DomainError('NOT_FOUND', `Unknown country: ${input.country}`);
      return { ...listed, ...(await countryOffer(ctx.db, code)) };
    }),
  states: publicProcedure
    .input(statesInput)
    .output(locationsStatesOutput)
    .query(async ({ ctx, input }) => {
      const offered = await offeredCountries(ctx.db, ctx.deps.config);
      const states = offered.has(input.country.toUpperCase()) ? listStates(input.country) : null;
      if (!states) throw new DomainError('NOT_FOUND', `Unknown country: ${input.country}`);
      return states;
    }),
  cities: publicProcedure
    .input(citiesInput)
    .output(locationsCitiesOutput)
    .query(async ({ ctx, input }) => {
      const offered = await offeredCountries(ctx.db, ctx.deps.config);
      const cities = offered.has(input.country.toUpperCase()) ? listCities(input.country, input.state) : null;
      if (!cities) {
        throw new DomainError(
          'NOT_FOUND',
          offered.has(input.country.toUpperCase()) && listStates(input.country) ? `Unknown state: ${input.state}` : `Unknown country: ${input.country}`,
        );
      }
      return cities;
    }),
  /** The longest a sticky line for this country keeps its IP (the pools serving it), null for no limit. */
  sessionLimit: publicProcedure
    .input(statesInput)
    .output(locationsSessionLimitOutput)
    .query(({ ctx, input }) => sessionLimitFor(ctx.db, input.country.toUpperCase())),
} satisfies TRPCRouterRecord;
