/**
 * Dashboard card: the bandwidth-burn advisor. What this month's traffic to analytics, ads, fonts,
 * media CDNs, telemetry and captcha hosts cost (GET /api/usage/burn, at the user's own rate), its
 * largest hosts, and "Block for this account", which adds them to a proxy account's target rules.
 */
import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { MAIN_ACCOUNT_ID } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Card, SelectField, Spinner, useOutcome } from './ui';

/** Hosts the card lists, and blocks with one click. */
const TOP_HOSTS = 10;

type BurnHost = RouterOutputs['usage']['burn']['hosts'][number];
// A category's name by its key in the dashboard catalogue.
const columns = (t: TFunction<'dashboard'>): Column<BurnHost>[] => [
  { head: t('burn.host'), cell: (h) => h.host, className: 'mono' },
  { head: t('burn.category'), cell: (h) => t(`burn.categories.${h.category}`) },
  { head: t('burn.data'), cell: (h) => fmt.gb(h.bytes), num: true },
  { head: t('burn.cost'), cell: (h) => fmt.cents(h.costCents), num: true },
];

export function BurnCard() {
  const { t } = useTranslation('dashboard');
  const burn = trpc.usage.burn.useQuery(undefined, { staleTime: 0 });
  const accounts = trpc.proxyAccounts.list.useQuery(undefined, { staleTime: 0 });
  const block = trpc.proxyAccounts.blockTargets.useMutation();
  const utils = trpc.useUtils();
  const [account, setAccount] = useState<string>(MAIN_ACCOUNT_ID);
  const { setOutcome, alert: outcome } = useOutcome();

  if (burn.isPending) return <Spinner label={t('burn.reading')} />;
  if (burn.isError) return <Alert kind="error">{errorMessage(burn.error, t('burn.loadFailed'))}</Alert>;
  const b = burn.data;
  const top = b.hosts.slice(0, TOP_HOSTS);
  const choices = (accounts.data?.accounts ?? []).map((a) => ({
    id: a.kind === 'main' ? MAIN_ACCOUNT_ID : a.proxyUserId,
    name: a.kind === 'main' ? t('burn.mainAccount') : `${a.name} (${a.proxyUserId})`,
  }));
  if (!choices.length) choices.push({ id: MAIN_ACCOUNT_ID, name: t('burn.mainAccount') });
  const chosen = choices.find((c) => c.id === account) ?? choices[0]!;

  async function blockTop(): Promise<void> {
    setOutcome(null);
    try {
      const r = await block.mutateAsync({ id: chosen.id, hosts: top.map((h) => h.host) });
      await utils.proxyAccounts.targetRules.invalidate({ id: chosen.id });
      const how = r.mode === 'deny' ? t('burn.blockedInAll', { count: r.patterns.length }) : t('burn.offAllowList');
      setOutcome({ kind: 'success', text: t('burn.blocked', { count: top.length, account: chosen.name, how }) });
    } catch (err) {
      setOutcome({ kind: 'error', text: errorMessage(err, t('burn.blockFailed')) });
    }
  }

  return (
    <Card title={t('burn.title')} description={t('burn.description')}>
      {top.length === 0 ? (
        <p className="muted" data-testid="burn-summary">
          {t('burn.nothing')}
        </p>
      ) : (
        <>
          <p data-testid="burn-summary">
            <strong>{t('burn.saved', { gb: fmt.gb(b.blockableBytes), cost: fmt.cents(b.blockableCostCents) })}</strong>
          </p>
          <DataTable columns={columns(t)} rows={top} rowKey={(h) => h.host} empty={null} label={t('burn.hostsLabel')} testId="burn-hosts" />
          {outcome}
          <div className="grid-3 grid-align-end">
            <SelectField label={t('burn.proxyAccount')} value={chosen.id} onChange={(e) => setAccount(e.target.value)}>
              {choices.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </SelectField>
            <div className="field-action">
              <Button variant="secondary" loading={block.isPending} onClick={() => void blockTop()}>
                {t('burn.block')}
              </Button>
            </div>
          </div>
        </>
      )}
    </Card>
  );
}
