/**
 * The admin panel's catalogue: the countries sold. Search the dataset's countries by name or code,
 * tick the ones to offer, save. A ticked country is offered to customers while an enabled upstream
 * serves it (or while no upstream is enabled: direct egress).
 */
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { setCatalogueInput } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { validate } from '../../lib/validation';
import { trpc } from '../../trpc';
import { Alert, Button, Card, Spinner } from '../ui';

export function AdminCatalogue() {
  const current = trpc.admin.catalogue.useQuery(undefined, { staleTime: 0 });
  const choices = trpc.admin.catalogueChoices.useQuery(undefined, { staleTime: Infinity });
  const save = trpc.admin.setCatalogue.useMutation();
  const utils = trpc.useUtils();
  const [picked, setPicked] = useState<Set<string> | null>(null);
  const [search, setSearch] = useState('');
  const [notice, setNotice] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  useEffect(() => {
    if (current.data && picked === null) setPicked(new Set(current.data.countries));
  }, [current.data, picked]);

  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    const all = choices.data?.countries ?? [];
    return q ? all.filter((c) => c.name.toLowerCase().includes(q) || c.code.toLowerCase() === q) : all;
  }, [choices.data, search]);

  function toggle(code: string, on: boolean) {
    const next = new Set(picked ?? []);
    if (on) next.add(code);
    else next.delete(code);
    setPicked(next);
    setNotice(null);
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const checked = validate(setCatalogueInput, { countries: [...(picked ?? [])].sort() });
    if (!checked.ok) return setNotice({ kind: 'error', text: Object.values(checked.errors)[0] ?? 'Invalid input' });
    try {
      const r = await save.mutateAsync(checked.data);
      setPicked(new Set(r.countries));
      await utils.admin.catalogue.invalidate();
      setNotice({ kind: 'success', text: `Saved: ${r.countries.length} ${r.countries.length === 1 ? 'country' : 'countries'} in the catalogue.` });
    } catch (err) {
      setNotice({ kind: 'error', text: errorMessage(err, 'Saving the catalogue failed') });
    }
  }

  if (current.isError || choices.isError) return <Alert kind="error">{errorMessage(current.error ?? choices.error, 'Failed to load the catalogue')}</Alert>;
  if (!picked || !choices.data) return <Spinner label="Loading the catalogue" />;
  return (
    <Card
      title={`Catalogue (${picked.size} of ${choices.data.countries.length} countries)`}
      description="The countries customers can choose. A ticked country is offered while an enabled upstream serves it, or while no upstream is enabled (direct egress)."
    >
      <form onSubmit={(e) => void onSubmit(e)} noValidate data-testid="catalogue-form">
        {notice && <Alert kind={notice.kind}>{notice.text}</Alert>}
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
