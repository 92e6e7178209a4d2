/**
 * The admin panel's catalogue: the countries sold. Search the dataset's countries by name or code,
 * tick the ones to offer, save. A ticked country is offered to customers while an enabled upstream
 * serves it (or while no upstream is enabled: direct egress).
 */
import { useEffect, useMemo, useState } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
import { setCatalogueInput } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import { firstError, useActionForm } from '../../lib/form';
import { trpc } from '../../trpc';
import { Alert, Button, Card, Spinner } from '../ui';

const resolver = zodResolver(setCatalogueInput);

export function AdminCatalogue() {
  const { t } = useTranslation('network');
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
      return t('catalogue.saved', { count: r.countries.length });
    },
    (err) => errorMessage(err, t('catalogue.saveFailed')),
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
    return q ? all.filter((c) => c.name.toLowerCase().includes(q) || fmt.country(c.code).toLowerCase().includes(q) || c.code.toLowerCase() === q) : all;
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
  if (current.isError || choices.isError) return <Alert kind="error">{errorMessage(current.error ?? choices.error, t('catalogue.loadFailed'))}</Alert>;
  if (!loaded || !choices.data) return <Spinner label={t('catalogue.loading')} />;
  return (
    <Card title={t('catalogue.title', { picked: fmt.number(picked.size), count: choices.data.countries.length })} description={t('catalogue.description')}>
      <form onSubmit={onSubmit} noValidate data-testid="catalogue-form">
        {invalid ? <Alert kind="error">{invalid}</Alert> : outcome}
        <div className="search">
          <input
            type="search"
            aria-label={t('catalogue.search')}
            placeholder={t('catalogue.searchPlaceholder')}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </div>
        <ul className="catalogue-list" data-testid="catalogue-countries">
          {shown.map((c) => (
            <li key={c.code}>
              <label className="check">
                <input type="checkbox" checked={picked.has(c.code)} onChange={(e) => toggle(c.code, e.target.checked)} />
                <span>
                  {fmt.country(c.code, c.name)} <span className="mono">{c.code}</span>
                </span>
              </label>
            </li>
          ))}
          {shown.length === 0 && <li className="table-empty">{t('catalogue.noMatch', { search })}</li>}
        </ul>
        <Button type="submit" loading={save.isPending}>
          {t('catalogue.save')}
        </Button>
      </form>
    </Card>
  );
}
