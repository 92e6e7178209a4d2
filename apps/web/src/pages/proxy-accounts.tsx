import { useState } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import { createProxyAccountInput, formatGb, MAX_SUB_ACCOUNTS } from '@proxyhub/core';
import { SecretText } from '../components/secret-field';
import { TARGET_RULES_HELP, TargetRulesForm } from '../components/target-rules-settings';
import { Alert, Button, Card, CopyButton, Field, PageHeader, Spinner } from '../components/ui';
import { formatBytes } from '../lib/bytes';
import { errorMessage } from '../lib/errors';
import { firstError, FormField, setFormError, submitWith, useSchemaForm } from '../lib/form';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { usePageTitle } from '../lib/page-title';

type Account = RouterOutputs['proxyAccounts']['list']['accounts'][number];

const KIND: Record<Account['kind'], string> = { main: 'Main', batch: 'Batch', sub: 'Sub-account' };
const capInput = (v: string) => (v.trim() === '' ? null : Number(v));
const gbField = (bytes: string | null) => (bytes === null ? '' : formatGb(BigInt(bytes)));
/** A datetime-local value (the browser's time zone) and back; empty is no expiry. */
const localDateTime = (iso: string | null) => {
  if (iso === null) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const expiryInput = (v: string) => (v.trim() === '' ? null : new Date(v).toISOString());

/** The limits beside the cap, in one line: "10 GB a day (1.2 GB used today) · ...". */
function limitsText(a: Account): string {
  const parts: string[] = [];
  if (a.dailyLimitBytes !== null) parts.push(`${formatGb(BigInt(a.dailyLimitBytes))} GB a day (${formatBytes(BigInt(a.dayUsedBytes))} used today, UTC)`);
  if (a.monthlyLimitBytes !== null) parts.push(`${formatGb(BigInt(a.monthlyLimitBytes))} GB a month (${formatBytes(BigInt(a.monthUsedBytes))} this month)`);
  if (a.maxConnections !== null) parts.push(`at most ${a.maxConnections} connections at once`);
  if (a.expiresAt !== null) parts.push(`${new Date(a.expiresAt).getTime() <= Date.now() ? 'expired' : 'expires'} ${new Date(a.expiresAt).toLocaleString()}`);
  return parts.join(' · ');
}

export function ProxyAccountsPage() {
  usePageTitle('Proxy Accounts');
  const accounts = trpc.proxyAccounts.list.useQuery(undefined, { staleTime: 0 });
  const subs = accounts.data?.accounts.filter((a) => a.kind === 'sub').length ?? 0;
  return (
    <>
      <PageHeader
        title="Proxy accounts"
        subtitle={`Separate credentials with their own limits for each tool or client. Sub-accounts spend your balance, never beyond their cap, daily or monthly limit, until they expire (${subs} of ${MAX_SUB_ACCOUNTS}).`}
      />
      <CreateAccount />
      <Card title="Accounts">
        {accounts.isPending && <Spinner label="Loading accounts..." />}
        {accounts.isError && <Alert kind="error">{errorMessage(accounts.error, 'Failed to load proxy accounts')}</Alert>}
        <div className="account-list">
          {accounts.data?.accounts.map((a) => (
            <AccountRow key={a.proxyUserId} account={a} />
          ))}
        </div>
      </Card>
    </>
  );
}

const createResolver = zodResolver(createProxyAccountInput);
/** An empty cap is none (null); a typed one a number for the schema to check. */
const capOptions = { setValueAs: (v: string | number | null) => (typeof v === 'string' ? capInput(v) : v) };

function CreateAccount() {
  const utils = trpc.useUtils();
  const create = trpc.proxyAccounts.create.useMutation();
  const form = useSchemaForm(createResolver, { name: '', capGB: null });
  const onSubmit = submitWith(
    form,
    async (input) => {
      try {
        await create.mutateAsync(input);
        form.reset();
        await utils.proxyAccounts.list.invalidate();
      } catch (err) {
        setFormError(form, errorMessage(err, 'Creating the account failed'));
      }
    },
    'Creating the account failed',
  );
  const error = firstError(form);
  return (
    <Card title="New sub-account" description="Leave the cap empty for no limit other than your balance.">
      <form className="grid-3 grid-align-end" onSubmit={onSubmit} noValidate>
        <FormField form={form} name="name" showError={false} label="Account name" placeholder="e.g. Scraper EU" />
        <FormField form={form} name="capGB" options={capOptions} showError={false} label="Cap (GB)" inputMode="decimal" placeholder="e.g. 5" />
        <div className="field-action">
          <Button type="submit" loading={create.isPending}>
            Create account
          </Button>
        </div>
      </form>
      {error && <Alert kind="error">{error}</Alert>}
    </Card>
  );
}

function AccountRow({ account: a }: { account: Account }) {
  const utils = trpc.useUtils();
  const update = trpc.proxyAccounts.update.useMutation();
  const rotate = trpc.proxyAccounts.rotatePassword.useMutation();
  const [cap, setCap] = useState(gbField(a.capBytes));
  const [daily, setDaily] = useState(gbField(a.dailyLimitBytes));
  const [monthly, setMonthly] = useState(gbField(a.monthlyLimitBytes));
  const [maxConns, setMaxConns] = useState(a.maxConnections === null ? '' : String(a.maxConnections));
  const [expires, setExpires] = useState(localDateTime(a.expiresAt));
  const [error, setError] = useState<string | null>(null);
  const [rulesOpen, setRulesOpen] = useState(false);
  // The password the rotation answered: the list shows the old one until its refetch lands.
  const [rotated, setRotated] = useState<string | null>(null);
  const used = BigInt(a.usedBytes);
  const capBytes = a.capBytes === null ? null : BigInt(a.capBytes);
  const percent = capBytes ? Math.min(100, Number((used * 10000n) / capBytes) / 100) : null;
  const run = async (what: string, f: () => Promise<unknown>) => {
    setError(null);
    try {
      await f();
      await Promise.all([utils.proxyAccounts.list.invalidate(), utils.auth.me.invalidate()]);
    } catch (err) {
      setError(errorMessage(err, what));
    }
  };
  return (
    <section className="account-row" data-testid={`account-${a.proxyUserId}`} aria-label={`${a.name} proxy account`}>
      <div className="account-head">
        <div>
          <strong>{a.kind === 'main' ? 'Main account' : a.name}</strong> <span className="badge badge-gray">{KIND[a.kind]}</span>
          {a.disabled && <span className="badge badge-red">Disabled</span>}
          <div className="muted small mono">
            {a.proxyUserId} · password <SecretText value={a.proxyPassword} label={`password of ${a.name}`} />
          </div>
        </div>
        <CopyButton text={`${a.proxyUserId}:${a.proxyPassword}`} variant="ghost" ariaLabel={`Copy credentials of ${a.name}`} />
      </div>
      <div className="usage-bar" role="meter" aria-label={`${a.name} usage`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent ?? 0}>
        <span style={{ width: `${percent ?? 0}%` }} />
      </div>
      <div className="muted small" data-testid="account-usage">
        {formatBytes(used)} used{capBytes !== null ? ` of ${formatGb(capBytes)} GB cap` : ' · no cap'}
      </div>
      {limitsText(a) && (
        <div className="muted small" data-testid="account-limits">
          {limitsText(a)}
        </div>
      )}
      {error && <Alert kind="error">{error}</Alert>}
      {rotated && <Alert kind="success">New password: {rotated}. The old one stops working within seconds.</Alert>}
      <div className="account-actions">
        {a.kind !== 'main' && (
          <>
            <Field label={`Cap for ${a.name} (GB)`} inputMode="decimal" value={cap} onChange={(e) => setCap(e.target.value)} />
            <Button
              variant="secondary"
              loading={update.isPending}
              onClick={() => void run('Saving the cap failed', () => update.mutateAsync({ proxyUserId: a.proxyUserId, capGB: capInput(cap) }))}
            >
              Save cap
            </Button>
            <Field label={`Daily limit for ${a.name} (GB, UTC day)`} inputMode="decimal" value={daily} onChange={(e) => setDaily(e.target.value)} />
            <Field label={`Monthly limit for ${a.name} (GB, UTC month)`} inputMode="decimal" value={monthly} onChange={(e) => setMonthly(e.target.value)} />
            <Field label={`Max connections for ${a.name}`} inputMode="numeric" value={maxConns} onChange={(e) => setMaxConns(e.target.value)} />
            <Field label={`Expires (${a.name})`} type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
            <Button
              variant="secondary"
              loading={update.isPending}
              onClick={() =>
                void run('Saving the limits failed', () =>
                  update.mutateAsync({
                    proxyUserId: a.proxyUserId,
                    dailyLimitGB: capInput(daily),
                    monthlyLimitGB: capInput(monthly),
                    maxConnections: capInput(maxConns),
                    expiresAt: expiryInput(expires),
                  }),
                )
              }
            >
              Save limits
            </Button>
            <Button
              variant="secondary"
              onClick={() => void run('The change failed', () => update.mutateAsync({ proxyUserId: a.proxyUserId, disabled: !a.disabled }))}
            >
              {a.disabled ? 'Enable' : 'Disable'}
            </Button>
          </>
        )}
        <Button
          variant="secondary"
          loading={rotate.isPending}
          onClick={() => {
            if (!window.confirm(`Replace the password of ${a.proxyUserId}? Tools using the old one stop working.`)) return;
            void run('Rotating the password failed', async () => {
              setRotated((await rotate.mutateAsync({ proxyUserId: a.proxyUserId })).proxyPassword);
            });
          }}
        >
          New password
        </Button>
      </div>
      {/* Read only once opened: a page of a hundred accounts asks for no rules until one is looked at. */}
      <details className="account-target-rules" onToggle={(e) => setRulesOpen(e.currentTarget.open)}>
        <summary>Target rules</summary>
        {rulesOpen && (
          <>
            <p className="muted small">{TARGET_RULES_HELP}</p>
            <TargetRulesForm id={a.kind === 'main' ? 'main' : a.proxyUserId} name={a.kind === 'main' ? 'the main account' : a.name} />
          </>
        )}
      </details>
    </section>
  );
}
