/**
 * The dashboard's traffic: a chart of the last 24 hours by hour or the last 30 days by day, and the
 * same bytes by country and by proxy account. Re-read with the balance while the tab is visible.
 */
import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatGb, type UsageGranularity } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { LIVE_REFRESH_MS } from '../session';
import { trpc } from '../trpc';
import { Alert, Card } from './ui';

const MiB = 1024 * 1024;
const RANGES: { id: UsageGranularity; label: string }[] = [
  { id: 'hour', label: 'Last 24 hours' },
  { id: 'day', label: 'Last 30 days' },
];

/** Bytes for people: MB below a GB (a chart of small traffic should not read 0.00 everywhere). */
function formatBytes(bytes: bigint | number): string {
  const b = BigInt(bytes);
  return b >= 1024n * BigInt(MiB) ? `${formatGb(b)} GB` : `${(Number(b) / MiB).toFixed(2)} MB`;
}

function bucketLabel(iso: string, granularity: UsageGranularity): string {
  const d = new Date(iso);
  return granularity === 'hour'
    ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' })
    : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

export function UsagePanel() {
  const [granularity, setGranularity] = useState<UsageGranularity>('hour');
  const usage = trpc.usage.history.useQuery({ granularity }, { refetchInterval: LIVE_REFRESH_MS, refetchOnWindowFocus: true, staleTime: 0 });
  const data = usage.data;
  const points = (data?.points ?? []).map((p) => ({
    label: bucketLabel(p.start, granularity),
    start: p.start,
    // Charted in MB: numbers the axis can show; the tooltip formats them.
    down: Number(BigInt(p.bytesDown)) / MiB,
    up: Number(BigInt(p.bytesUp)) / MiB,
  }));
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
      <div className="tabs" role="tablist" aria-label="Usage period">
        {RANGES.map((r) => (
          <button
            key={r.id}
            type="button"
            role="tab"
            aria-selected={granularity === r.id}
            className={`tab${granularity === r.id ? ' active' : ''}`}
            onClick={() => setGranularity(r.id)}
          >
            {r.label}
          </button>
        ))}
      </div>
      {usage.isError && <Alert kind="error">{errorMessage(usage.error, 'Failed to load usage')}</Alert>}
      <div className="usage-chart" data-testid="usage-chart" data-total-bytes={String(total)}>
        <ResponsiveContainer width="100%" height={260}>
          <BarChart data={points} margin={{ top: 16, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="label" tick={{ fontSize: 12 }} interval="preserveStartEnd" minTickGap={16} />
            <YAxis tick={{ fontSize: 12 }} width={56} unit=" MB" />
            <Tooltip formatter={(v) => `${Number(v).toFixed(2)} MB`} />
            <Legend />
            <Bar dataKey="down" name="Download" stackId="b" fill="#4f46e5" isAnimationActive={false} />
            <Bar dataKey="up" name="Upload" stackId="b" fill="#a5b4fc" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <div className="grid-2">
        <UsageTable
          testId="usage-by-country"
          title="By country"
          rows={(data?.byCountry ?? []).map((c) => ({ key: c.country ?? '', name: c.country ?? 'Unknown', bytes: c.bytes }))}
        />
        <UsageTable
          testId="usage-by-account"
          title="By proxy account"
          rows={(data?.byAccount ?? []).map((a) => ({ key: a.proxyUserId, name: `${a.name} (${a.proxyUserId})`, bytes: a.bytes }))}
        />
      </div>
    </Card>
  );
}

function UsageTable({ title, rows, testId }: { title: string; rows: { key: string; name: string; bytes: string }[]; testId: string }) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid={testId}>
        <thead>
          <tr>
            <th scope="col">{title}</th>
            <th scope="col" className="num">
              Traffic
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={2} className="table-empty">
                No traffic in this period
              </td>
            </tr>
          ) : (
            rows.map((r) => (
              <tr key={r.key}>
                <td>{r.name}</td>
                <td className="num">{formatBytes(BigInt(r.bytes))}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
