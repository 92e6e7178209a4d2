/**
 * Settings card: the IP allow-list (addresses the user's proxy credentials work from) and
 * password-less access from them. Each add, remove and switch is saved at once (nothing waits for a
 * second Save to be lost); the address the server sees this page coming from is a one-click entry.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver, ResolverResult } from 'react-hook-form';
import { useState, type FormEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
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
function savedSummary(t: TFunction<'settings'>, r: { entries: AllowlistEntryInput[]; passwordless: boolean; notes: string[] }): string {
  const notes = r.notes.map((n) => `${n}. `).join('');
  if (r.entries.length === 0) return `${notes}${t('allowlist.summaryAny')}`;
  const one = entryText(r.entries[0]!);
  const where =
    r.entries.length > 1
      ? t('allowlist.whereMany', { count: r.entries.length })
      : t(one.includes('/') ? 'allowlist.whereRange' : 'allowlist.whereAddress', { entry: one });
  return `${notes}${t(r.passwordless ? 'allowlist.summaryOnlyPasswordless' : 'allowlist.summaryOnly', { where })}`;
}

export function IpAllowlistSettings() {
  const { t } = useTranslation('settings');
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
      setOutcome({ kind: 'success', text: `${done} ${savedSummary(t, r)}` });
      return true;
    } catch (err) {
      await current.refetch();
      setOutcome({ kind: 'error', text: errorMessage(err, t('allowlist.saveFailed')) });
      return false;
    }
  }
  const add = (entry: string) => {
    const saved = parseAllowlistEntry(entry)?.entry ?? entry;
    return saveList({ entries: entries.includes(saved) ? list : [...list, entry], passwordless }, t('allowlist.added', { entry: saved }));
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
    t('allowlist.invalid'),
  );

  return (
    <Card
      title={t('allowlist.title')}
      description={t('allowlist.description', { v4: ALLOWLIST_MIN_PREFIX.ipv4, v6: ALLOWLIST_MIN_PREFIX.ipv6, max: MAX_ALLOWLIST_ENTRIES })}
    >
      <ul className="allowlist" aria-label={t('allowlist.listLabel')} aria-busy={busy || undefined}>
        {current.isSuccess && entries.length === 0 && <li className="muted">{t('allowlist.none')}</li>}
        {entries.map((entry) => (
          <li key={entry}>
            <code>{entry}</code>
            <Button
              variant="ghost"
              aria-label={t('allowlist.removeLabel', { entry })}
              disabled={busy}
              onClick={() => void saveList({ entries: list.filter((x) => entryText(x) !== entry), passwordless }, t('allowlist.removed', { entry }))}
            >
              {t('words.remove')}
            </Button>
          </li>
        ))}
      </ul>
      <form className="form inline-form" onSubmit={onAdd} noValidate aria-label={t('allowlist.addLabel')}>
        <FormField form={adding} name="entry" label={t('allowlist.field')} autoComplete="off" placeholder={t('allowlist.placeholder')} />
        <Button type="submit" variant="secondary" disabled={full || busy}>
          {t('words.add')}
        </Button>
      </form>
      {here && (
        <p className="allowlist-suggestion" data-testid="current-address">
          <Trans t={t} i18nKey="allowlist.here" values={{ addr: here }} components={{ addr: <code /> }} />{' '}
          {hereNormalised && !entries.includes(hereNormalised) && (
            <Button variant="secondary" onClick={() => void add(hereNormalised)} disabled={full || busy}>
              {t('allowlist.addHere', { addr: hereNormalised })}
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
            void saveList({ entries: list, passwordless: e.target.checked }, t(e.target.checked ? 'allowlist.passwordlessOn' : 'allowlist.passwordlessOff'))
          }
        />
        <span>
          <strong>{t('allowlist.passwordlessTitle')}</strong>{' '}
          <Trans
            t={t}
            i18nKey="allowlist.passwordlessText"
            values={{ v4: PASSWORDLESS_MIN_PREFIX.ipv4, v6: PASSWORDLESS_MIN_PREFIX.ipv6 }}
            components={{ code: <code /> }}
          />
        </span>
      </label>
      {passwordless && entries.length > 0 && current.data?.entryPorts && (
        <EntryPorts list={list} range={current.data.entryPorts} busy={busy} save={(next, done) => saveList({ entries: next, passwordless }, done)} />
      )}
      {outcome}
    </Card>
  );
}

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
  const { t } = useTranslation('settings');
  const accounts = trpc.proxyAccounts.list.useQuery(undefined, { staleTime: 0 });
  const nameOf = (id: string | undefined) =>
    id === undefined ? t('allowlist.ports.mainAccountLower') : (accounts.data?.accounts.find((a) => a.proxyUserId === id)?.name ?? id);
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
        t('allowlist.portSet', { port: p.port, entry }),
      )
    ) {
      setDraft({ ...draft, location: '' });
    }
  }

  const rows = list.flatMap((e) => entryPorts(e).map((p) => ({ entry: entryText(e), p })));
  return (
    <section className="entry-ports" aria-label={t('allowlist.ports.label')}>
      <h3>{t('allowlist.ports.title')}</h3>
      <p className="muted">
        <Trans
          t={t}
          i18nKey="allowlist.ports.text"
          values={{ from: range.from, to: range.to }}
          components={{ range: <strong data-testid="entry-port-range" /> }}
        />
      </p>
      {rows.length > 0 && (
        <ul className="allowlist" aria-label={t('allowlist.ports.profilesLabel')}>
          {rows.map(({ entry, p }) => (
            <li key={`${entry}:${p.port}`}>
              <span>
                <code>{entry}</code> →{' '}
                {t('allowlist.ports.profile', {
                  port: p.port,
                  account: nameOf(p.proxyAccountId),
                  location: p.location,
                  duration: durationLabel(p.durationMinutes),
                })}
              </span>
              <Button
                variant="ghost"
                aria-label={t('allowlist.ports.removeLabel', { port: p.port, entry })}
                disabled={busy}
                onClick={() =>
                  void save(
                    withPorts(entry, (ps) => ps.filter((x) => x.port !== p.port)),
                    t('allowlist.portRemoved', { port: p.port, entry }),
                  )
                }
              >
                {t('words.remove')}
              </Button>
            </li>
          ))}
        </ul>
      )}
      <form className="form entry-port-form" onSubmit={(e) => void onAdd(e)} noValidate aria-label={t('allowlist.ports.formLabel')}>
        {list.length > 1 && (
          <SelectField label={t('allowlist.ports.for')} value={draft.entry} onChange={set('entry')}>
            {list.map((e) => (
              <option key={entryText(e)} value={entryText(e)}>
                {entryText(e)}
              </option>
            ))}
          </SelectField>
        )}
        <Field label={t('allowlist.ports.port')} type="number" min={range.from} max={range.to} value={draft.port} onChange={set('port')} error={error} />
        <SelectField label={t('allowlist.ports.account')} value={draft.proxyAccountId} onChange={set('proxyAccountId')}>
          <option value="">{t('allowlist.ports.mainAccount')}</option>
          {accounts.data?.accounts
            .filter((a) => a.kind === 'sub')
            .map((a) => (
              <option key={a.proxyUserId} value={a.proxyUserId}>
                {a.name}
              </option>
            ))}
        </SelectField>
        <Field
          label={t('allowlist.ports.location')}
          placeholder={t('allowlist.ports.locationPlaceholder')}
          value={draft.location}
          onChange={set('location')}
          autoComplete="off"
        />
        <SelectField label={t('allowlist.ports.session')} value={draft.durationMinutes} onChange={set('durationMinutes')}>
          {GENERATOR_DURATION_OPTIONS.map((m) => (
            <option key={m} value={m}>
              {durationLabel(m)}
            </option>
          ))}
        </SelectField>
        <Button type="submit" variant="secondary" disabled={busy}>
          {t('allowlist.ports.submit')}
        </Button>
      </form>
    </section>
  );
}
