/**
 * The catalogue: the countries the operator sells, and which of them are offered right now. A
 * catalogue country is offered while some enabled upstream serves it (an upstream's `countries`
 * null serves all), or while the gateways have an egress that reaches every country: direct egress
 * (no upstream enabled) or the default upstream (GATEWAY_UPSTREAM_URL, set on the servers as on the
 * gateways; the server reads only whether it is set). The server decides from its own database and
 * configuration, nothing from the gateways.
 */
import { eq } from 'drizzle-orm';
import { DomainError, type SetCatalogueInput } from '@proxyhub/core';
import { catalogue, upstreams, type DbOrTx } from '@proxyhub/db';
import { isDatasetCountry, LOCATION_COUNTRIES } from './locations';

/** The catalogue as the operator set it (upper-case ISO codes, sorted); the default list until then. */
export async function getCatalogue(db: DbOrTx): Promise<{ countries: string[] }> {
  const [row] = await db.select({ countries: catalogue.countries }).from(catalogue).where(eq(catalogue.id, 1));
  return { countries: row ? row.countries : [...LOCATION_COUNTRIES] };
}

/** Replaces the catalogue; a code the dataset does not know is a 400 naming it (nothing saved). */
export async function setCatalogue(tx: DbOrTx, input: SetCatalogueInput): Promise<{ countries: string[] }> {
  const unknown = input.countries.filter((c) => !isDatasetCountry(c));
  if (unknown.length) throw new DomainError('BAD_REQUEST', `countries: unknown country code${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  const countries = [...input.countries].sort();
  await tx
    .insert(catalogue)
    .values({ id: 1, countries })
    .onConflictDoUpdate({ target: catalogue.id, set: { countries, updatedAt: new Date() } });
  return { countries };
}

/** The catalogue countries offered now (see the module comment), as a set of upper-case codes. */
export async function offeredCountries(db: DbOrTx, egress: { defaultUpstream?: boolean | undefined } = {}): Promise<Set<string>> {
  const { countries } = await getCatalogue(db);
  if (egress.defaultUpstream) return new Set(countries);
  const enabled = await db.select({ countries: upstreams.countries }).from(upstreams).where(eq(upstreams.enabled, true));
  const all = enabled.length === 0 || enabled.some((u) => u.countries === null);
  if (all) return new Set(countries);
  const served = new Set(enabled.flatMap((u) => u.countries ?? []));
  return new Set(countries.filter((c) => served.has(c)));
}
