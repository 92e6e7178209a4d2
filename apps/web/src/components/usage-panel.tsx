/**
 * The dashboard's traffic: a chart of the last 24 hours by hour or the last 30 days by day, and the
 * same bytes by country and by proxy account; by target and country with each one's success rate
 * and median connect time. Re-read with the balance while the tab is visible.
 */
import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { ConnectionOutcome, UsageGranularity } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { LIVE_REFRESH_MS, type RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Card } from './ui';
import { qualityColumns, type Quality } from './connection-quality';
import { formatBytes } from '../lib/bytes';
import { fmt } from '../lib/format';
import { TabStrip } from './tab-strip';
import { Bytes } from './units';
import { UsageChart } from './usage-chart';

/** The outcomes with a hint of what a customer can do about them (one line each, in the dashboard catalogue). */
const HINTED = ['refused', 'target_unreachable', 'upstream_failed', 'upstream_unavailable', 'cut_off', 'client_closed', 'timeout', 'rotated'] as const;
type Hinted = (typeof HINTED)[number];
const hinted = (o: ConnectionOutcome): o is Hinted => (HINTED as readonly string[]).includes(o);

type History = RouterOutputs['usage']['history'];
type Dashboard = TFunction<'dashboard'>;
const targetColumns = (t: Dashboard): Column<History['byTarget'][number]>[] => [
  { head: t('usage.byTarget'), cell: (r) => r.host },
  { head: t('usage.traffic'), num: true, cell: (r) => <Bytes bytes={r.bytes} /> },
  { head: t('usage.connections'), num: true, cell: (r) => fmt.number(r.connections) },
  ...qualityColumns<History['byTarget'][number]>((r) => r, t),
];
const outcomeColumns = (t: Dashboard): Column<History['byOutcome'][number]>[] => [
  {
    head: t('usage.byOutcome'),
    cell: (o) => (
      <>
        {o.outcome}
        {hinted(o.outcome) && <div className="muted hint">{t(`hints.${o.outcome}`)}</div>}
      </>
    ),
  },
  { head: t('usage.connections'), num: true, cell: (o) => fmt.number(o.connections) },
];

export function UsagePanel() {
  const { t } = useTranslation('dashboard');
  const ranges: { id: UsageGranularity; label: string }[] = [
    { id: 'hour', label: t('usage.lastDay') },
    { id: 'day', label: t('usage.lastMonth') },
  ];
  const [granularity, setGranularity] = useState<UsageGranularity>('hour');
  const usage = trpc.usage.history.useQuery({ granularity }, { refetchInterval: LIVE_REFRESH_MS, refetchOnWindowFocus: true, staleTime: 0 });
  const data = usage.data;
  const total = data ? BigInt(data.totals.bytesUp) + BigInt(data.totals.bytesDown) : 0n;
  return (
    <Card
      title={t('usage.title')}
      description={data ? t('usage.periodTotal', { bytes: formatBytes(total) }) : t('usage.description')}
      actions={
        <a className="btn btn-secondary" href={`/api/usage?format=csv&granularity=${granularity}`} download>
          {t('usage.downloadCsv')}
        </a>
      }
    >
      <TabStrip
        label={t('usage.period')}
        idPrefix="usage"
        panels={false}
        tabs={ranges}
        current={granularity}
        onSelect={(id) => setGranularity(id as UsageGranularity)}
      />
      {usage.isError && <Alert kind="error">{errorMessage(usage.error, t('usage.loadFailed'))}</Alert>}
      <UsageChart points={data?.points ?? []} granularity={granularity} totalBytes={total} />
      <div className="grid-2">
        <UsageTable
          testId="usage-by-country"
          title={t('usage.byCountry')}
          rows={(data?.byCountry ?? []).map((c) => ({ key: c.country ?? '', name: c.country ?? t('usage.unknownCountry'), bytes: c.bytes, quality: c }))}
        />
        <UsageTable
          testId="usage-by-account"
          title={t('usage.byAccount')}
          rows={(data?.byAccount ?? []).map((a) => ({ key: a.proxyUserId, name: `${a.name} (${a.proxyUserId})`, bytes: a.bytes }))}
        />
      </div>
      <div className="grid-2">
        <DataTable testId="usage-by-target" columns={targetColumns(t)} rows={data?.byTarget ?? []} rowKey={(r) => r.host} empty={t('usage.noConnections')} />
        <DataTable
          testId="usage-by-outcome"
          columns={outcomeColumns(t)}
          rows={data?.byOutcome ?? []}
          rowKey={(o) => o.outcome}
          empty={t('usage.noConnections')}
        />
      </div>
    </Card>
  );
}

/** `quality`: the row's success rate and median connect time, shown when given (by country). */
type Named = { key: string; name: string; bytes: string; quality?: Quality };

function UsageTable({ title, rows, testId }: { title: string; rows: Named[]; testId: string }) {
  const { t } = useTranslation('dashboard');
  const columns: Column<Named>[] = [
    { head: title, cell: (r) => r.name },
    { head: t('usage.traffic'), num: true, cell: (r) => <Bytes bytes={r.bytes} /> },
    ...(rows.some((r) => r.quality) ? qualityColumns<Named>((r) => r.quality ?? { okRate: null, p50ConnectMs: null }, t) : []),
  ];
  return <DataTable testId={testId} columns={columns} rows={rows} rowKey={(r) => r.key} empty={t('usage.noTraffic')} />;
}
