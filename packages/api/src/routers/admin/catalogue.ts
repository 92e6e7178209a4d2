import type { TRPCRouterRecord } from '@trpc/server';
import { setCatalogueInput, adminCatalogueOutput, adminCatalogueChoicesOutput, adminSetCatalogueOutput } from '@proxyhub/core';
import { getCatalogue, setCatalogue } from '../../services/network/catalogue';
import { datasetCountries } from '../../services/network/locations';
import { adminOrInternalProcedure } from '../../trpc';

/** The Catalogue tab. */
export const adminCatalogueProcedures = {
  /** The countries sold (offered while an upstream serves them, or egress is direct). */
  catalogue: adminOrInternalProcedure.output(adminCatalogueOutput).query(({ ctx }) => getCatalogue(ctx.db)),
  /** Every country the catalogue may list (the location dataset's), by name. */
  catalogueChoices: adminOrInternalProcedure.output(adminCatalogueChoicesOutput).query(() => ({ countries: datasetCountries() })),
  setCatalogue: adminOrInternalProcedure
    .input(setCatalogueInput)
    .output(adminSetCatalogueOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => setCatalogue(tx, input))),
} satisfies TRPCRouterRecord;
