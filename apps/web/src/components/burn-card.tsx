/**
 * Dashboard card: the bandwidth-burn advisor. What this month's traffic to analytics, ads, fonts,
 * media CDNs, telemetry and captcha hosts cost (GET /api/usage/burn, at the user's own rate), its
 * largest hosts, and "Block for this account", which adds them to a proxy account's target rules.
 */
import { useState } from 'react';
import { centsToUsd, formatGb, HOST_CATEGORY_LABELS, MAIN_ACCOUNT_ID } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Card, SelectField, Spinner, useOutcome } from './ui';

/** Hosts the card lists, and blocks with one click. */
const TOP_HOSTS = 10;

type BurnHost = RouterOutputs['usage']['burn']['hosts'][number];
const COLUMNS: Column<BurnHost>[] = [
  { head: 'Host', cell: (h) => h.host, className: 'mono' },
  { head: 'Category', cell: (h) => HOST_CATEGORY_LABELS[h.category] },
  { head: 'Data', cell: (h) => `${formatGb(BigInt(h.bytes))} GB`, num: true },
  { head: 'Cost', cell: (h) => `$${centsToUsd(h.costCents)}`, num: true },
];

export function BurnCard() {
  const burn = trpc.usage.burn.useQuery(undefined, { staleTime: 0 });
  const accounts = trpc.proxyAccounts.list.useQuery(undefined, { staleTime: 0 });
  const block = trpc.proxyAccounts.blockTargets.useMutation();
  const utils = trpc.useUtils();
  const [account, setAccount] = useState<string>(MAIN_ACCOUNT_ID);
  const { setOutcome, alert: outcome } = useOutcome();

  if (burn.isPending) return <Spinner label="Reading this month's traffic..." />;
  if (burn.isError) return <Alert kind="error">{errorMessage(burn.error, 'The bandwidth advice could not be loaded')}</Alert>;
  const b = burn.data;
  const top = b.hosts.slice(0, TOP_HOSTS);
  const choices = (accounts.data?.accounts ?? []).map((a) => ({
    id: a.kind === 'main' ? MAIN_ACCOUNT_ID : a.proxyUserId,
    name: a.kind === 'main' ? 'Main account' : `${a.name} (${a.proxyUserId})`,
  }));
  if (!choices.length) choices.push({ id: MAIN_ACCOUNT_ID, name: 'Main account' });
  const chosen = choices.find((c) => c.id === account) ?? choices[0]!;

  async function blockTop(): Promise<void> {
    setOutcome(null);
    try {
      const r = await block.mutateAsync({ id: chosen.id, hosts: top.map((h) => h.host) });
      await utils.proxyAccounts.targetRules.invalidate({ id: chosen.id });
      const how = r.mode === 'deny' ? `${r.patterns.length} blocked in all` : 'no longer on its allow list';
      setOutcome({
        kind: 'success',
        text: `Blocked ${top.length} host${top.length === 1 ? '' : 's'} for ${chosen.name} (${how}). Every gateway applies this within 10 seconds.`,
      });
    } catch (err) {
      setOutcome({ kind: 'error', text: errorMessage(err, 'The hosts could not be blocked') });
    }
  }

  return (
    <Card
      title="Bandwidth burn"
      description="Traffic this month to analytics, advertising, fonts, media CDNs, telemetry and captcha hosts, at your price per GB."
    >
      {top.length === 0 ? (
        <p className="muted" data-testid="burn-summary">
          Nothing this month went to analytics, advertising, font, media CDN, telemetry or captcha hosts.
        </p>
      ) : (
        <>
          <p data-testid="burn-summary">
            <strong>
              Blocking these hosts would have saved {formatGb(BigInt(b.blockableBytes))} GB (${centsToUsd(b.blockableCostCents)}) this month
            </strong>
          </p>
          <DataTable columns={COLUMNS} rows={top} rowKey={(h) => h.host} empty={null} label="Hosts burning bandwidth" testId="burn-hosts" />
          {outcome}
          <div className="grid-3 grid-align-end">
            <SelectField label="Proxy account" value={chosen.id} onChange={(e) => setAccount(e.target.value)}>
              {choices.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </SelectField>
            <div className="field-action">
              <Button variant="secondary" loading={block.isPending} onClick={() => void blockTop()}>
                Block for this account
              </Button>
            </div>
          </div>
        </>
      )}
    </Card>
  );
}
