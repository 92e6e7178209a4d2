import { z } from 'zod';

/** The countries the operator sells (admin.setCatalogue, PUT /admin/catalogue). */
export const MAX_CATALOGUE_COUNTRIES = 300;

export const setCatalogueInput = z.object({
  /** Two-letter ISO codes, any case (stored upper-case, duplicates dropped); the dataset must know each. */
  countries: z
    .array(z.string({ error: 'Countries must be two-letter country codes' }).regex(/^[A-Za-z]{2}$/, 'Countries must be two-letter country codes'), {
      error: 'Countries must be a list of country codes',
    })
    .min(1, 'Choose at least one country')
    .max(MAX_CATALOGUE_COUNTRIES, `Choose at most ${MAX_CATALOGUE_COUNTRIES} countries`)
    .transform((codes) => [...new Set(codes.map((c) => c.toUpperCase()))]),
});
export type SetCatalogueInput = z.infer<typeof setCatalogueInput>;
