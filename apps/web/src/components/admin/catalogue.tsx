/**
 * The admin panel's catalogue: the countries sold. Search the dataset's countries by name or code,
 * tick the ones to offer, save. A ticked country is offered to customers while an enabled upstream
 * serves it (or while no upstream is enabled: direct egress).
 */
import { useEffect, useMemo, useState } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import { setCatalogueInput } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { firstError, useActionForm } from '../../lib/form';
import { trpc } from '../../trpc';
import { Alert, Button, Card, Spinner } from '../ui';

const resolver = zodResolver(setCatalogueInput);

export function AdminCatalogue() {
  const current = trpc.admin.catalogue.useQuery(undefined, { staleTime: 0 });
  const choices = trpc.admin.catalogueChoices.useQuery(undefined, { staleTime: Infinity });
  const save = trpc.admin.setCatalogue.useMutation();
  const utils = trpc.useUtils();
  const [search, setSearch] = useState('');
  const { form, onSubmit, outcome, clearOutcome } = useActionForm(
    resolver,
    { countries: [] },
    async (input, f) => {
      const r = await save.mutateAsync(input);
      f.reset({ countries: r.countries });
      await utils.admin.catalogue.invalidate();
      return `Saved: ${r.countries.length} ${r.countries.length === 1 ? 'country' : 'countries'} in the catalogue.`;
    },
    (err) => errorMessage(err, 'Saving the catalogue failed'),
  );
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    if (!current.data || loaded) return;
    form.reset({ countries: current.data.countries });
    setLoaded(true);
  }, [current.data, loaded, form]);

  const countries = form.watch('countries');
  const picked = useMemo(() => new Set(countries), [countries]);
  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    const all = choices.data?.countries ?? [];
    return q ? all.filter((c) => c.name.toLowerCase().includes(q) || c.code.toLowerCase() === q) : all;
  }, [choices.data, search]);

  function toggle(code: string, on: boolean) {
    const next = new Set(picked);
    if (on) next.add(code);
    else next.delete(code);
    form.setValue('countries', [...next].sort());
    form.clearErrors();
    clearOutcome();
  }

  const invalid = firstError(form);
  if (current.isError || choices.isError) return <Alert kind="error">{errorMessage(current.error ?? choices.error, 'Failed to load the catalogue')}</Alert>;
  if (!loaded || !choices.data) return <Spinner label="Loading the catalogue" />;
  return (
    <Card
      title={`Catalogue (${picked.size} of ${choices.data.countries.length} countries)`}
      description="The countries customers can choose. A ticked country is offered while an enabled upstream serves it, or while no upstream is enabled (direct egress)."
    >
      <form onSubmit={onSubmit} noValidate data-testid="catalogue-form">
        {invalid ? <Alert kind="error">{invalid}</Alert> : outcome}
        <div className="search">
          <input type="search" aria-label="Search countries" placeholder="Search by name or code" value={search} onChange={(e) => setSearch(e.target.value)} />
        </div>
        <ul className="catalogue-list" data-testid="catalogue-countries">
          {shown.map((c) => (
            <li key={c.code}>
              <label className="check">
                <input type="checkbox" checked={picked.has(c.code)} onChange={(e) => toggle(c.code, e.target.checked)} />
                <span>
                  {c.name} <span className="mono">{c.code}</span>
                </span>
              </label>
            </li>
          ))}
          {shown.length === 0 && <li className="table-empty">No country matches “{search}”.</li>}
        </ul>
        <Button type="submit" loading={save.isPending}>
          Save catalogue
        </Button>
      </form>
    </Card>
  );
}
