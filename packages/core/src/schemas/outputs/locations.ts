import { z } from 'zod';

/** What the `locations.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const locationsCountriesOutput = z.array(z.object({ code: z.string(), name: z.string(), states: z.number(), cities: z.number() }));

export const locationsCountryOutput = z.object({
  zip: z.boolean(),
  asn: z.boolean(),
  hard: z.boolean(),
  maxSessionMinutes: z.number().nullable(),
  code: z.string(),
  name: z.string(),
  states: z.number(),
  cities: z.number(),
});

export const locationsStatesOutput = z.array(z.object({ code: z.string(), name: z.string(), cities: z.number() }));

export const locationsCitiesOutput = z.array(z.object({ code: z.string(), name: z.string() }));

export const locationsSessionLimitOutput = z.object({ country: z.string(), maxSessionMinutes: z.number().nullable() });
