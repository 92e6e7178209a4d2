import { useState } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { createProxyAccountInput, formatGb, MAX_SUB_ACCOUNTS } from '@proxyhub/core';
import { SecretText } from '../components/secret-field';
import { TargetRulesForm, useTargetRulesHelp } from '../components/target-rules-settings';
import { Alert, Button, Card, CopyButton, Field, PageHeader, Spinner } from '../components/ui';
import { formatBytes } from '../lib/bytes';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import { firstError, FormField, setFormError, submitWith, useSchemaForm } from '../lib/form';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { usePageTitle } from '../lib/page-title';

type Account = RouterOutputs['proxyAccounts']['list']['accounts'][number];

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
function limitsText(t: TFunction<'proxies'>, a: Account): string {
  const parts: string[] = [];
  if (a.dailyLimitBytes !== null) parts.push(t('accounts.daily', { limit: fmt.gb(a.dailyLimitBytes), used: formatBytes(a.dayUsedBytes) }));
  if (a.monthlyLimitBytes !== null) parts.push(t('accounts.monthly', { limit: fmt.gb(a.monthlyLimitBytes), used: formatBytes(a.monthUsedBytes) }));
  if (a.maxConnections !== null) parts.push(t('accounts.maxConnections', { count: a.maxConnections }));
  if (a.expiresAt !== null) {
    const when = fmt.dateTime(a.expiresAt);
    parts.push(new Date(a.expiresAt).getTime() <= Date.now() ? t('accounts.expired', { when }) : t('accounts.expires', { when }));
  }
  return parts.join(' · ');
}

export function ProxyAccountsPage() {
  const { t } = useTranslation('proxies');
  usePageTitle(t('accounts.pageTitle'));
  const accounts = trpc.proxyAccounts.list.useQuery(undefined, { staleTime: 0 });
  const subs = accounts.data?.accounts.filter((a) => a.kind === 'sub').length ?? 0;
  return (
    <>
      <PageHeader title={t('accounts.title')} subtitle={t('accounts.subtitle', { subs: fmt.number(subs), max: fmt.number(MAX_SUB_ACCOUNTS) })} />
      <CreateAccount />
      <Card title={t('accounts.list')}>
        {accounts.isPending && <Spinner label={t('accounts.loading')} />}
        {accounts.isError && <Alert kind="error">{errorMessage(accounts.error, t('accounts.loadFailed'))}</Alert>}
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
  const { t } = useTranslation('proxies');
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
        setFormError(form, errorMessage(err, t('accounts.createFailed')));
      }
    },
    t('accounts.createFailed'),
  );
  const error = firstError(form);
  return (
    <Card title={t('accounts.newTitle')} description={t('accounts.newDescription')}>
      <form className="grid-3 grid-align-end" onSubmit={onSubmit} noValidate>
        <FormField form={form} name="name" showError={false} label={t('accounts.name')} placeholder={t('accounts.namePlaceholder')} />
        <FormField
          form={form}
          name="capGB"
          options={capOptions}
          showError={false}
          label={t('accounts.cap')}
          inputMode="decimal"
          placeholder={t('accounts.capPlaceholder')}
        />
        <div className="field-action">
          <Button type="submit" loading={create.isPending}>
            {t('accounts.create')}
          </Button>
        </div>
      </form>
      {error && <Alert kind="error">{error}</Alert>}
    </Card>
  );
}

function AccountRow({ account: a }: { account: Account }) {
  const { t } = useTranslation('proxies');
  const targetRulesHelp = useTargetRulesHelp();
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
    <section className="account-row" data-testid={`account-${a.proxyUserId}`} aria-label={t('accounts.row', { name: a.name })}>
      <div className="account-head">
        <div>
          <strong>{a.kind === 'main' ? t('accounts.mainAccount') : a.name}</strong> <span className="badge badge-gray">{t(`accounts.kinds.${a.kind}`)}</span>
          {a.disabled && <span className="badge badge-red">{t('accounts.disabled')}</span>}
          <div className="muted small mono">
            {a.proxyUserId} · {t('accounts.password')} <SecretText value={a.proxyPassword} label={t('accounts.passwordOf', { name: a.name })} />
          </div>
        </div>
        <CopyButton
          text={`${a.proxyUserId}:${a.proxyPassword}`}
          variant="ghost"
          label={t('copy')}
          copiedLabel={t('copied')}
          ariaLabel={t('accounts.copyCredentials', { name: a.name })}
        />
      </div>
      <div
        className="usage-bar"
        role="meter"
        aria-label={t('accounts.usageMeter', { name: a.name })}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent ?? 0}
      >
        <span style={{ width: `${percent ?? 0}%` }} />
      </div>
      <div className="muted small" data-testid="account-usage">
        {capBytes !== null ? t('accounts.usedOfCap', { used: formatBytes(used), cap: fmt.gb(capBytes) }) : t('accounts.usedNoCap', { used: formatBytes(used) })}
      </div>
      {limitsText(t, a) && (
        <div className="muted small" data-testid="account-limits">
          {limitsText(t, a)}
        </div>
      )}
      {error && <Alert kind="error">{error}</Alert>}
      {rotated && <Alert kind="success">{t('accounts.rotated', { password: rotated })}</Alert>}
      <div className="account-actions">
        {a.kind !== 'main' && (
          <>
            <Field label={t('accounts.capFor', { name: a.name })} inputMode="decimal" value={cap} onChange={(e) => setCap(e.target.value)} />
            <Button
              variant="secondary"
              loading={update.isPending}
              onClick={() => void run(t('accounts.saveCapFailed'), () => update.mutateAsync({ proxyUserId: a.proxyUserId, capGB: capInput(cap) }))}
            >
              {t('accounts.saveCap')}
            </Button>
            <Field label={t('accounts.dailyFor', { name: a.name })} inputMode="decimal" value={daily} onChange={(e) => setDaily(e.target.value)} />
            <Field label={t('accounts.monthlyFor', { name: a.name })} inputMode="decimal" value={monthly} onChange={(e) => setMonthly(e.target.value)} />
            <Field
              label={t('accounts.maxConnectionsFor', { name: a.name })}
              inputMode="numeric"
              value={maxConns}
              onChange={(e) => setMaxConns(e.target.value)}
            />
            <Field label={t('accounts.expiresFor', { name: a.name })} type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
            <Button
              variant="secondary"
              loading={update.isPending}
              onClick={() =>
                void run(t('accounts.saveLimitsFailed'), () =>
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
              {t('accounts.saveLimits')}
            </Button>
            <Button
              variant="secondary"
              onClick={() => void run(t('accounts.changeFailed'), () => update.mutateAsync({ proxyUserId: a.proxyUserId, disabled: !a.disabled }))}
            >
              {a.disabled ? t('accounts.enable') : t('accounts.disable')}
            </Button>
          </>
        )}
        <Button
          variant="secondary"
          loading={rotate.isPending}
          onClick={() => {
            if (!window.confirm(t('accounts.confirmRotate', { id: a.proxyUserId }))) return;
            void run(t('accounts.rotateFailed'), async () => {
              setRotated((await rotate.mutateAsync({ proxyUserId: a.proxyUserId })).proxyPassword);
            });
          }}
        >
          {t('accounts.newPassword')}
        </Button>
      </div>
      {/* Read only once opened: a page of a hundred accounts asks for no rules until one is looked at. */}
      <details className="account-target-rules" onToggle={(e) => setRulesOpen(e.currentTarget.open)}>
        <summary>{t('accounts.targetRules')}</summary>
        {rulesOpen && (
          <>
            <p className="muted small">{targetRulesHelp}</p>
            <TargetRulesForm id={a.kind === 'main' ? 'main' : a.proxyUserId} name={a.kind === 'main' ? t('rules.mainAccount') : a.name} />
          </>
        )}
      </details>
    </section>
  );
}
