/**
 * Settings card: the IP allow-list (addresses the user's proxy credentials work from) and
 * password-less access from them. Edits stay on the page until saved; the address the server sees
 * this page coming from is offered as a one-click entry.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { invalidAllowlistEntryMessage, MAX_ALLOWLIST_ENTRIES, parseAllowlistEntry, PASSWORDLESS_MIN_PREFIX, setIpAllowlistInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { validate } from '../lib/validation';
import { trpc } from '../trpc';
import { Button, Card, Field, useOutcome } from './ui';

export function IpAllowlistSettings() {
  const current = trpc.ipAllowlist.get.useQuery(undefined, { staleTime: 0 });
  const save = trpc.ipAllowlist.set.useMutation();
  const [entries, setEntries] = useState<string[]>([]);
  const [passwordless, setPasswordless] = useState(false);
  const [draft, setDraft] = useState('');
  const [draftError, setDraftError] = useState<string | undefined>();
  const { setOutcome: setResult, alert: resultAlert } = useOutcome();
  useEffect(() => {
    if (!current.data) return;
    setEntries(current.data.entries);
    setPasswordless(current.data.passwordless);
  }, [current.data]);

  const here = current.data?.currentAddress;
  const hereNormalised = here ? parseAllowlistEntry(here)?.entry : undefined;
  const full = entries.length >= MAX_ALLOWLIST_ENTRIES;

  /** Adds an entry in its normalised form; false (with the reason shown) when it is not one. */
  function add(text: string): boolean {
    const n = parseAllowlistEntry(text);
    if (!n) {
      setDraftError(invalidAllowlistEntryMessage(text));
      return false;
    }
    if (full) {
      setDraftError(`At most ${MAX_ALLOWLIST_ENTRIES} entries in the IP allow-list`);
      return false;
    }
    setEntries((list) => (list.includes(n.entry) ? list : [...list, n.entry]));
    setResult(null);
    return true;
  }

  function onAdd(e: FormEvent) {
    e.preventDefault();
    if (add(draft)) setDraft('');
  }

  async function onSave() {
    setResult(null);
    const v = validate(setIpAllowlistInput, { entries, passwordless });
    if (!v.ok) return setResult({ kind: 'error', text: Object.values(v.errors)[0] ?? 'Invalid input' });
    try {
      const r = await save.mutateAsync(v.data);
      setResult({
        kind: 'success',
        text:
          r.entries.length === 0
            ? 'Allow-list saved: your proxy credentials work from any address.'
            : `Allow-list saved: your proxy credentials work only from ${r.entries.length === 1 ? 'this address' : `these ${r.entries.length} entries`}${r.passwordless ? ', without a password too' : ''}. The gateway applies it within a minute.`,
      });
      await current.refetch();
    } catch (err) {
      setResult({ kind: 'error', text: errorMessage(err, 'Failed to save the allow-list') });
    }
  }

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
            <Button variant="ghost" aria-label={`Remove ${entry}`} onClick={() => setEntries((list) => list.filter((x) => x !== entry))}>
              Remove
            </Button>
          </li>
        ))}
      </ul>
      <form className="form inline-form" onSubmit={onAdd} noValidate aria-label="Add an address">
        <Field
          label="Address or range"
          name="entry"
          autoComplete="off"
          placeholder="e.g. 203.0.113.7 or 2001:db8::/48"
          value={draft}
          error={draftError}
          onChange={(e) => {
            setDraft(e.target.value);
            setDraftError(undefined);
          }}
        />
        <Button type="submit" variant="secondary" disabled={full}>
          Add
        </Button>
      </form>
      {here && (
        <p className="allowlist-suggestion" data-testid="current-address">
          You are using this page from <code>{here}</code>.{' '}
          {hereNormalised && !entries.includes(hereNormalised) && (
            <Button variant="secondary" onClick={() => add(here)} disabled={full}>
              Add {hereNormalised}
            </Button>
          )}
        </p>
      )}
      <label className="check">
        <input type="checkbox" checked={passwordless} onChange={(e) => setPasswordless(e.target.checked)} />
        <span>
          <strong>Password-less access from these addresses.</strong> Connections from a listed address that bring no username and password (a browser,
          Playwright, Puppeteer or Selenium with <code>socks5://host:port</code>) use your main account, any location, billed as usual. Each entry can then be
          at most a /{PASSWORDLESS_MIN_PREFIX.ipv4} (IPv4) or /{PASSWORDLESS_MIN_PREFIX.ipv6} (IPv6), and an address can be password-less for one account only.
        </span>
      </label>
      <div className="form-actions">
        <Button onClick={() => void onSave()} loading={save.isPending}>
          Save Allow-List
        </Button>
      </div>
      {resultAlert}
    </Card>
  );
}
