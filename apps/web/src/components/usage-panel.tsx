/**
 * The dashboard's traffic: a chart of the last 24 hours by hour or the last 30 days by day, and the
 * same bytes by country and by proxy account; by target and country with each one's success rate
 * and median connect time. Re-read with the balance while the tab is visible.
 */
import { useState } from 'react';
import type { ConnectionOutcome, UsageGranularity } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { LIVE_REFRESH_MS, type RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Card } from './ui';
import { qualityColumns, type Quality } from './connection-quality';
import { formatBytes } from '../lib/bytes';
import { TabStrip } from './tab-strip';
import { Bytes } from './units';
import { UsageChart } from './usage-chart';

/** What a customer can do about each way a connection fails: one line each. */
export const OUTCOME_HINTS: Partial<Record<ConnectionOutcome, string>> = {
  refused: 'we refused it: check the username, password, location and your balance (the reason is in Connections)',
  target_unreachable: 'the site did not answer through this exit; try another location or a rotating line',
  upstream_failed: 'our upstream provider failed; try again, or another location',
  upstream_unavailable: 'no exit was left for that country for a moment; try again shortly, or another country',
  cut_off: 'your balance or the proxy account limit ran out mid-connection; top up or raise the limit',
  client_closed: 'your client hung up before the end; usually harmless',
  timeout: 'nothing moved for too long; the site may be slow, or your client idle',
  rotated: 'you asked for a new IP for its line, which closes its open connections; reconnect to get the new exit',
};

type History = RouterOutputs['usage']['history'];
const TARGET_COLUMNS: Column<History['byTarget'][number]>[] = [
  { head: 'By target', cell: (t) => t.host },
  { head: 'Traffic', num: true, cell: (t) => <Bytes bytes={t.bytes} /> },
  { head: 'Connections', num: true, cell: (t) => t.connections },
  ...qualityColumns<History['byTarget'][number]>((t) => t),
];
const OUTCOME_COLUMNS: Column<History['byOutcome'][number]>[] = [
  {
    head: 'By outcome',
    cell: (o) => (
      <>
        {o.outcome}
        {OUTCOME_HINTS[o.outcome] && <div className="muted hint">{OUTCOME_HINTS[o.outcome]}</div>}
      </>
    ),
  },
  { head: 'Connections', num: true, cell: (o) => o.connections },
];

const RANGES: { id: UsageGranularity; label: string }[] = [
  { id: 'hour', label: 'Last 24 hours' },
  { id: 'day', label: 'Last 30 days' },
];

export function UsagePanel() {
  const [granularity, setGranularity] = useState<UsageGranularity>('hour');
  const usage = trpc.usage.history.useQuery({ granularity }, { refetchInterval: LIVE_REFRESH_MS, refetchOnWindowFocus: true, staleTime: 0 });
  const data = usage.data;
  const total = data ? BigInt(data.totals.bytesUp) + BigInt(data.totals.bytesDown) : 0n;
  return (
    <Card
      title="Usage"
      description={data ? `${formatBytes(total)} in this period, UTC` : 'Traffic through your proxy accounts'}
      actions={
        <a className="btn btn-secondary" href={`/api/usage?format=csv&granularity=${granularity}`} download>
          Download CSV
        </a>
      }
    >
      <TabStrip
        label="Usage period"
        idPrefix="usage"
        panels={false}
        tabs={RANGES}
        current={granularity}
        onSelect={(id) => setGranularity(id as UsageGranularity)}
      />
      {usage.isError && <Alert kind="error">{errorMessage(usage.error, 'Failed to load usage')}</Alert>}
      <UsageChart points={data?.points ?? []} granularity={granularity} totalBytes={total} />
      <div className="grid-2">
        <UsageTable
          testId="usage-by-country"
          title="By country"
          rows={(data?.byCountry ?? []).map((c) => ({ key: c.country ?? '', name: c.country ?? 'Unknown', bytes: c.bytes, quality: c }))}
        />
        <UsageTable
          testId="usage-by-account"
          title="By proxy account"
          rows={(data?.byAccount ?? []).map((a) => ({ key: a.proxyUserId, name: `${a.name} (${a.proxyUserId})`, bytes: a.bytes }))}
        />
      </div>
      <div className="grid-2">
        <DataTable testId="usage-by-target" columns={TARGET_COLUMNS} rows={data?.byTarget ?? []} rowKey={(t) => t.host} empty="No connections in this period" />
        <DataTable
          testId="usage-by-outcome"
          columns={OUTCOME_COLUMNS}
          rows={data?.byOutcome ?? []}
          rowKey={(o) => o.outcome}
          empty="No connections in this period"
        />
      </div>
    </Card>
  );
}

/** `quality`: the row's success rate and median connect time, shown when given (by country). */
type Named = { key: string; name: string; bytes: string; quality?: Quality };

function UsageTable({ title, rows, testId }: { title: string; rows: Named[]; testId: string }) {
  const columns: Column<Named>[] = [
    { head: title, cell: (r) => r.name },
    { head: 'Traffic', num: true, cell: (r) => <Bytes bytes={r.bytes} /> },
    ...(rows.some((r) => r.quality) ? qualityColumns<Named>((r) => r.quality ?? { okRate: null, p50ConnectMs: null }) : []),
  ];
  return <DataTable testId={testId} columns={columns} rows={rows} rowKey={(r) => r.key} empty="No traffic in this period" />;
}
