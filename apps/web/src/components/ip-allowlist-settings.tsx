/**
 * Settings card: the IP allow-list (addresses the user's proxy credentials work from) and
 * password-less access from them. Edits stay on the page until saved; the address the server sees
 * this page coming from is offered as a one-click entry.
 */
import { useEffect } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver, ResolverResult } from 'react-hook-form';
import { MAX_ALLOWLIST_ENTRIES, parseAllowlistEntry, PASSWORDLESS_MIN_PREFIX, setIpAllowlistInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { FormField, firstError, submitWith, useActionForm, useSchemaForm } from '../lib/form';
import { trpc } from '../trpc';
import { Alert, Button, Card } from './ui';

const resolver = zodResolver(setIpAllowlistInput);

/**
 * The address typed to add, checked by the allow-list's own schema as the list would be with it
 * (so "not an address" and "the list is full" read as the server says them), its message under the field.
 */
const entryResolver =
  (entries: string[]): Resolver<{ entry: string }> =>
  async (values, context, options): Promise<ResolverResult<{ entry: string }>> => {
    const r = await resolver({ entries: [...entries, values.entry] }, context, { ...options, names: undefined, fields: {} });
    const message = r.errors.entries?.message;
    if (message) return { values: {}, errors: { entry: { type: 'validate', message } } };
    return { values, errors: {} };
  };

export function IpAllowlistSettings() {
  const current = trpc.ipAllowlist.get.useQuery(undefined, { staleTime: 0 });
  const save = trpc.ipAllowlist.set.useMutation();
  const { form, onSubmit, outcome, clearOutcome } = useActionForm(
    resolver,
    { entries: [], passwordless: false },
    async (input) => {
      const r = await save.mutateAsync(input);
      await current.refetch();
      return r.entries.length === 0
        ? 'Allow-list saved: your proxy credentials work from any address.'
        : `Allow-list saved: your proxy credentials work only from ${r.entries.length === 1 ? 'this address' : `these ${r.entries.length} entries`}${r.passwordless ? ', without a password too' : ''}. The gateway applies it within a minute.`;
    },
    (err) => errorMessage(err, 'Failed to save the allow-list'),
  );
  useEffect(() => {
    if (current.data) form.reset({ entries: current.data.entries, passwordless: current.data.passwordless });
  }, [current.data, form]);

  const entries = form.watch('entries');
  const adding = useSchemaForm(entryResolver(entries), { entry: '' });
  const here = current.data?.currentAddress;
  const hereNormalised = here ? parseAllowlistEntry(here)?.entry : undefined;
  const full = entries.length >= MAX_ALLOWLIST_ENTRIES;

  /** Edits the list (an entry in its normalised form, once); the last save's outcome no longer applies. */
  function setEntries(next: string[]) {
    form.setValue('entries', next);
    form.clearErrors();
    clearOutcome();
  }
  const add = (entry: string) => setEntries(entries.includes(entry) ? entries : [...entries, entry]);

  const onAdd = submitWith(
    adding,
    ({ entry }) => {
      add(parseAllowlistEntry(entry)!.entry);
      adding.reset();
    },
    'Invalid input',
  );
  const saveError = firstError(form);

  return (
    <Card
      title="IP Allow-List"
      description={`Your proxy credentials work only from these addresses (IPv4, IPv6 or CIDR ranges, up to ${MAX_ALLOWLIST_ENTRIES}). An empty list allows any address.`}
    >
      <ul className="allowlist" aria-label="Allowed addresses">
        {entries.length === 0 && <li className="muted">No addresses: any address may use your credentials.</li>}
        {entries.map((entry) => (
          <li key={entry}>
            <code>{entry}</code>
            <Button variant="ghost" aria-label={`Remove ${entry}`} onClick={() => setEntries(entries.filter((x) => x !== entry))}>
              Remove
            </Button>
          </li>
        ))}
      </ul>
      <form className="form inline-form" onSubmit={onAdd} noValidate aria-label="Add an address">
        <FormField form={adding} name="entry" label="Address or range" autoComplete="off" placeholder="e.g. 203.0.113.7 or 2001:db8::/48" />
        <Button type="submit" variant="secondary" disabled={full}>
          Add
        </Button>
      </form>
      {here && (
        <p className="allowlist-suggestion" data-testid="current-address">
          You are using this page from <code>{here}</code>.{' '}
          {hereNormalised && !entries.includes(hereNormalised) && (
            <Button variant="secondary" onClick={() => add(hereNormalised)} disabled={full}>
              Add {hereNormalised}
            </Button>
          )}
        </p>
      )}
      <label className="check">
        <input type="checkbox" {...form.register('passwordless', { onChange: () => clearOutcome() })} />
        <span>
          <strong>Password-less access from these addresses.</strong> Connections from a listed address that bring no username and password (a browser,
          Playwright, Puppeteer or Selenium with <code>socks5://host:port</code>) use your main account, any location, billed as usual. Each entry can then be
          at most a /{PASSWORDLESS_MIN_PREFIX.ipv4} (IPv4) or /{PASSWORDLESS_MIN_PREFIX.ipv6} (IPv6), and an address can be password-less for one account only.
        </span>
      </label>
      <div className="form-actions">
        <Button onClick={onSubmit} loading={save.isPending}>
          Save Allow-List
        </Button>
      </div>
      {saveError ? <Alert kind="error">{saveError}</Alert> : outcome}
    </Card>
  );
}
