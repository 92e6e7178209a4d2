/**
 * Settings card: the IP allow-list (addresses the user's proxy credentials work from) and
 * password-less access from them. Each add, remove and switch is saved at once (nothing waits for a
 * second Save to be lost); the address the server sees this page coming from is a one-click entry.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver, ResolverResult } from 'react-hook-form';
import { useState, type FormEvent } from 'react';
import {
  ALLOWLIST_MIN_PREFIX,
  entryPorts,
  entryText,
  GENERATOR_DURATION_OPTIONS,
  MAX_ALLOWLIST_ENTRIES,
  parseAllowlistEntry,
  PASSWORDLESS_MIN_PREFIX,
  portProfileInput,
  setIpAllowlistInput,
  type AllowlistEntryInput,
  type EntryPortRange,
  type PortProfile,
  type SetIpAllowlistInput,
} from '@proxyhub/core';
import { durationLabel } from '../lib/durations';
import { errorMessage } from '../lib/errors';
import { FormField, submitWith, useSchemaForm } from '../lib/form';
import { trpc } from '../trpc';
import { Button, Card, Field, SelectField, useOutcome } from './ui';

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
function savedSummary(r: { entries: AllowlistEntryInput[]; passwordless: boolean; notes: string[] }): string {
  const notes = r.notes.map((n) => `${n}. `).join('');
  if (r.entries.length === 0) return `${notes}Your proxy credentials work from any address.`;
  const one = entryText(r.entries[0]!);
  const where = r.entries.length > 1 ? `these ${r.entries.length} entries` : one.includes('/') ? `the range ${one}` : `the address ${one}`;
  return `${notes}Your proxy credentials work only from ${where}${r.passwordless ? ', without a password too' : ''}. The gateway applies it within a minute.`;
}

export function IpAllowlistSettings() {
  const current = trpc.ipAllowlist.get.useQuery(undefined, { staleTime: 0 });
  const save = trpc.ipAllowlist.set.useMutation();
  const { setOutcome, alert: outcome } = useOutcome();
  const list = current.data?.entries ?? [];
  const entries = list.map(entryText);
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
    return saveList({ entries: entries.includes(saved) ? list : [...list, entry], passwordless }, `Allow-list saved: ${saved} added.`);
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
              onClick={() => void saveList({ entries: list.filter((x) => entryText(x) !== entry), passwordless }, `Allow-list saved: ${entry} removed.`)}
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
              { entries: list, passwordless: e.target.checked },
              e.target.checked ? 'Allow-list saved: password-less access on.' : 'Allow-list saved: password-less access off.',
            )
          }
        />
        <span>
          <strong>Password-less access from these addresses.</strong> Connections from a listed address that bring no username and password (a browser,
          Playwright, Puppeteer or Selenium with <code>socks5://host:port</code>) use your main account, any location, billed as usual; on an entry port, what
          you set for that port below. Each entry can then be at most a /{PASSWORDLESS_MIN_PREFIX.ipv4} (IPv4) or /{PASSWORDLESS_MIN_PREFIX.ipv6} (IPv6), and an
          address can be password-less for one account only.
        </span>
      </label>
      {passwordless && entries.length > 0 && current.data?.entryPorts && (
        <EntryPorts list={list} range={current.data.entryPorts} busy={busy} save={(next, done) => saveList({ entries: next, passwordless }, done)} />
      )}
      {outcome}
    </Card>
  );
}

const portText = (p: PortProfile, account: string) => `${p.port}: ${account}, ${p.location}, ${durationLabel(p.durationMinutes)}`;

/**
 * Entry ports: for tools that cannot send a username, each port of the gateway's entry range can
 * carry its own proxy account, location and session for a password-less entry. Saved at once, as
 * the rest of the card.
 */
function EntryPorts({
  list,
  range,
  busy,
  save,
}: {
  list: AllowlistEntryInput[];
  range: EntryPortRange;
  busy: boolean;
  save: (next: AllowlistEntryInput[], done: string) => Promise<boolean>;
}) {
  const accounts = trpc.proxyAccounts.list.useQuery(undefined, { staleTime: 0 });
  const nameOf = (id: string | undefined) => (id === undefined ? 'main account' : (accounts.data?.accounts.find((a) => a.proxyUserId === id)?.name ?? id));
  const [draft, setDraft] = useState({ entry: entryText(list[0]!), port: String(range.from), proxyAccountId: '', location: '', durationMinutes: '0' });
  const [error, setError] = useState<string | undefined>();
  const set = (field: keyof typeof draft) => (e: { target: { value: string } }) => setDraft({ ...draft, [field]: e.target.value });
  const withPorts = (entry: string, ports: (ps: PortProfile[]) => PortProfile[]) =>
    list.map((e) => (entryText(e) === entry ? { entry, ports: ports(entryPorts(e)) } : e));

  async function onAdd(ev: FormEvent) {
    ev.preventDefault();
    const parsed = portProfileInput.safeParse({
      port: Number(draft.port),
      location: draft.location,
      durationMinutes: Number(draft.durationMinutes),
      ...(draft.proxyAccountId && { proxyAccountId: draft.proxyAccountId }),
    });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setError(undefined);
    const p = parsed.data;
    const entry = list.some((e) => entryText(e) === draft.entry) ? draft.entry : entryText(list[0]!);
    if (
      await save(
        withPorts(entry, (ps) => [...ps.filter((x) => x.port !== p.port), p]),
        `Allow-list saved: port ${p.port} set for ${entry}.`,
      )
    ) {
      setDraft({ ...draft, location: '' });
    }
  }

  const rows = list.flatMap((e) => entryPorts(e).map((p) => ({ entry: entryText(e), p })));
  return (
    <section className="entry-ports" aria-label="Entry ports">
      <h3>Location per port</h3>
      <p className="muted">
        The gateway&apos;s entry ports are{' '}
        <strong data-testid="entry-port-range">
          {range.from}-{range.to}
        </strong>
        . A password-less connection from an address above to a port you set here uses that port&apos;s proxy account, location and session (sticky per address
        and port, or rotating); a port you have not set refuses it. The main port keeps the main account, any location.
      </p>
      {rows.length > 0 && (
        <ul className="allowlist" aria-label="Entry port profiles">
          {rows.map(({ entry, p }) => (
            <li key={`${entry}:${p.port}`}>
              <span>
                <code>{entry}</code> → port {portText(p, nameOf(p.proxyAccountId))}
              </span>
              <Button
                variant="ghost"
                aria-label={`Remove port ${p.port} of ${entry}`}
                disabled={busy}
                onClick={() =>
                  void save(
                    withPorts(entry, (ps) => ps.filter((x) => x.port !== p.port)),
                    `Allow-list saved: port ${p.port} removed from ${entry}.`,
                  )
                }
              >
                Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
      <form className="form entry-port-form" onSubmit={(e) => void onAdd(e)} noValidate aria-label="Set an entry port">
        {list.length > 1 && (
          <SelectField label="For" value={draft.entry} onChange={set('entry')}>
            {list.map((e) => (
              <option key={entryText(e)} value={entryText(e)}>
                {entryText(e)}
              </option>
            ))}
          </SelectField>
        )}
        <Field label="Port" type="number" min={range.from} max={range.to} value={draft.port} onChange={set('port')} error={error} />
        <SelectField label="Proxy account" value={draft.proxyAccountId} onChange={set('proxyAccountId')}>
          <option value="">Main account</option>
          {accounts.data?.accounts
            .filter((a) => a.kind === 'sub')
            .map((a) => (
              <option key={a.proxyUserId} value={a.proxyUserId}>
                {a.name}
              </option>
            ))}
        </SelectField>
        <Field label="Location" placeholder="e.g. FR or US-CA-LOSANGELES" value={draft.location} onChange={set('location')} autoComplete="off" />
        <SelectField label="Session" value={draft.durationMinutes} onChange={set('durationMinutes')}>
          {GENERATOR_DURATION_OPTIONS.map((m) => (
            <option key={m} value={m}>
              {durationLabel(m)}
            </option>
          ))}
        </SelectField>
        <Button type="submit" variant="secondary" disabled={busy}>
          Set port
        </Button>
      </form>
    </section>
  );
}
