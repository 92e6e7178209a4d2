/**
 * Settings card: the IP allow-list (addresses the user's proxy credentials work from) and
 * password-less access from them. Each add, remove and switch is saved at once (nothing waits for a
 * second Save to be lost); the address the server sees this page coming from is a one-click entry.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver, ResolverResult } from 'react-hook-form';
import {
  ALLOWLIST_MIN_PREFIX,
  MAX_ALLOWLIST_ENTRIES,
  parseAllowlistEntry,
  PASSWORDLESS_MIN_PREFIX,
  setIpAllowlistInput,
  type SetIpAllowlistInput,
} from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { FormField, submitWith, useSchemaForm } from '../lib/form';
import { trpc } from '../trpc';
import { Button, Card, useOutcome } from './ui';

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

/** What a saved list means for the proxy credentials, in a sentence, after what was stored otherwise than typed. */
function savedSummary(r: { entries: string[]; passwordless: boolean; notes: string[] }): string {
  const notes = r.notes.map((n) => `${n}. `).join('');
  if (r.entries.length === 0) return `${notes}Your proxy credentials work from any address.`;
  const one = r.entries[0]!;
  const where = r.entries.length > 1 ? `these ${r.entries.length} entries` : one.includes('/') ? `the range ${one}` : `the address ${one}`;
  return `${notes}Your proxy credentials work only from ${where}${r.passwordless ? ', without a password too' : ''}. The gateway applies it within a minute.`;
}

export function IpAllowlistSettings() {
  const current = trpc.ipAllowlist.get.useQuery(undefined, { staleTime: 0 });
  const save = trpc.ipAllowlist.set.useMutation();
  const { setOutcome, alert: outcome } = useOutcome();
  const entries = current.data?.entries ?? [];
  const passwordless = current.data?.passwordless ?? false;

  /** Saves the whole list as it should now be; the server's answer (or its refusal) is what the card then shows. */
  async function saveList(next: SetIpAllowlistInput, done: string): Promise<boolean> {
    setOutcome(null);
    try {
      const r = await save.mutateAsync(next);
      await current.refetch();
      setOutcome({ kind: 'success', text: `${done} ${savedSummary(r)}` });
      return true;
    } catch (err) {
      await current.refetch();
      setOutcome({ kind: 'error', text: errorMessage(err, 'Failed to save the allow-list') });
      return false;
    }
  }
  const add = (entry: string) => {
    const saved = parseAllowlistEntry(entry)?.entry ?? entry;
    return saveList({ entries: entries.includes(saved) ? entries : [...entries, entry], passwordless }, `Allow-list saved: ${saved} added.`);
  };

  const adding = useSchemaForm(entryResolver(entries), { entry: '' });
  const here = current.data?.currentAddress;
  const hereNormalised = here ? parseAllowlistEntry(here)?.entry : undefined;
  const full = entries.length >= MAX_ALLOWLIST_ENTRIES;
  const busy = save.isPending || current.isPending;

  const onAdd = submitWith(
    adding,
    async ({ entry }) => {
      // Sent as typed: the server stores it normalised and says so when that changed it.
      if (await add(entry.trim())) adding.reset();
    },
    'Invalid input',
  );

  return (
    <Card
      title="IP Allow-List"
      description={`Your proxy credentials work only from these addresses (IPv4, IPv6 or CIDR ranges no wider than /${ALLOWLIST_MIN_PREFIX.ipv4} or /${ALLOWLIST_MIN_PREFIX.ipv6}, up to ${MAX_ALLOWLIST_ENTRIES}). An empty list allows any address. Each change is saved at once.`}
    >
      <ul className="allowlist" aria-label="Allowed addresses" aria-busy={busy || undefined}>
        {current.isSuccess && entries.length === 0 && <li className="muted">No addresses: any address may use your credentials.</li>}
        {entries.map((entry) => (
          <li key={entry}>
            <code>{entry}</code>
            <Button
              variant="ghost"
              aria-label={`Remove ${entry}`}
              disabled={busy}
              onClick={() => void saveList({ entries: entries.filter((x) => x !== entry), passwordless }, `Allow-list saved: ${entry} removed.`)}
            >
              Remove
            </Button>
          </li>
        ))}
      </ul>
      <form className="form inline-form" onSubmit={onAdd} noValidate aria-label="Add an address">
        <FormField form={adding} name="entry" label="Address or range" autoComplete="off" placeholder="e.g. 203.0.113.7 or 2001:db8::/48" />
        <Button type="submit" variant="secondary" disabled={full || busy}>
          Add
        </Button>
      </form>
      {here && (
        <p className="allowlist-suggestion" data-testid="current-address">
          You are using this page from <code>{here}</code>.{' '}
          {hereNormalised && !entries.includes(hereNormalised) && (
            <Button variant="secondary" onClick={() => void add(hereNormalised)} disabled={full || busy}>
              Add {hereNormalised}
            </Button>
          )}
        </p>
      )}
      <label className="check">
        <input
          type="checkbox"
          checked={passwordless}
          disabled={busy}
          onChange={(e) =>
            void saveList(
              { entries, passwordless: e.target.checked },
              e.target.checked ? 'Allow-list saved: password-less access on.' : 'Allow-list saved: password-less access off.',
            )
          }
        />
        <span>
          <strong>Password-less access from these addresses.</strong> Connections from a listed address that bring no username and password (a browser,
          Playwright, Puppeteer or Selenium with <code>socks5://host:port</code>) use your main account, any location, billed as usual. Each entry can then be
          at most a /{PASSWORDLESS_MIN_PREFIX.ipv4} (IPv4) or /{PASSWORDLESS_MIN_PREFIX.ipv6} (IPv6), and an address can be password-less for one account only.
        </span>
      </label>
      {outcome}
    </Card>
  );
}
