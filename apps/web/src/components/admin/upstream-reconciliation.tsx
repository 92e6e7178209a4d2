/**
 * One upstream's reconciliation (admin Upstreams tab): the provider's bytes against ours per UTC
 * day over the last 30 days, as a chart and a table with the drift and the provider's cost, the
 * same rows as CSV, and a button that fetches the provider's last 7 days now.
 */
import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { centsToUsd } from '@proxyhub/core';
import { chartUnit, formatBytes, formatInUnit } from '../../lib/bytes';
import { errorMessage } from '../../lib/errors';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, type Column } from '../data-table';
import { Alert, Button, Card, Spinner } from '../ui';

type Day = RouterOutputs['admin']['upstreamReconciliation']['days'][number];

const signed = (bytes: string) => (bytes.startsWith('-') ? `-${formatBytes(bytes.slice(1))}` : `+${formatBytes(bytes)}`);

const COLUMNS: Column<Day>[] = [
  { head: 'Day', cell: (d) => d.date },
  { head: 'Provider', num: true, cell: (d) => (d.providerBytes === null ? 'Not fetched' : formatBytes(d.providerBytes)) },
  { head: 'Ours', num: true, cell: (d) => formatBytes(d.ourBytes) },
  { head: 'Drift', num: true, cell: (d) => (d.driftBytes === null ? '' : signed(d.driftBytes)) },
  { head: 'Drift %', num: true, cell: (d) => (d.driftPercent === null ? '' : `${d.driftPercent > 0 ? '+' : ''}${d.driftPercent.toFixed(2)}%`) },
  { head: 'Provider cost', num: true, cell: (d) => (d.costCents === null ? '' : `$${centsToUsd(d.costCents)}`) },
  { head: 'Fetched', cell: (d) => (d.fetchedAt ? new Date(d.fetchedAt).toLocaleString() : '') },
];

/** Provider and our bytes per day, in the unit the tallest bar needs (distinct ticks); a day not fetched has no provider bar. */
function ReconciliationChart({ days }: { days: Day[] }) {
  const unit = chartUnit(Math.max(0, ...days.flatMap((d) => [Number(BigInt(d.ourBytes)), d.providerBytes === null ? 0 : Number(BigInt(d.providerBytes))])));
  const points = days.map((d) => ({
    label: new Date(`${d.date}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' }),
    provider: d.providerBytes === null ? null : Number(BigInt(d.providerBytes)) / unit.size,
    ours: Number(BigInt(d.ourBytes)) / unit.size,
  }));
  return (
    <div data-testid="reconciliation-chart">
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={points} margin={{ top: 16, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="label" tick={{ fontSize: 12 }} interval="preserveStartEnd" minTickGap={16} />
          <YAxis tick={{ fontSize: 12 }} width={72} tickFormatter={(v: number) => formatInUnit(v, unit.name)} />
          <Tooltip formatter={(v) => formatInUnit(Number(v), unit.name)} />
          <Legend />
          <Bar dataKey="provider" name="Provider" fill="#f59e0b" isAnimationActive={false} />
          <Bar dataKey="ours" name="Ours" fill="#4f46e5" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function UpstreamReconciliation({ upstream }: { upstream: { id: string; name: string } }) {
  const q = trpc.admin.upstreamReconciliation.useQuery({ id: upstream.id }, { staleTime: 0 });
  const utils = trpc.useUtils();
  const reconcile = trpc.admin.reconcileUpstream.useMutation();
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  async function fetchNow() {
    setError(null);
    setNote(null);
    try {
      const r = await reconcile.mutateAsync({ id: upstream.id });
      const failed = r.days.filter((d) => d.status === 'error');
      if (failed.length) setError(failed.map((d) => `${d.date}: ${d.error ?? 'failed'}`).join('; '));
      else setNote(`Fetched ${r.days.filter((d) => d.status === 'fetched').length} days from the provider.`);
      await utils.admin.upstreamReconciliation.invalidate({ id: upstream.id });
    } catch (err) {
      setError(errorMessage(err, 'Fetching from the provider failed'));
    }
  }
  const days = q.data?.days ?? [];
  return (
    <Card
      title={`${upstream.name}: the provider's meter against ours`}
      description="Per UTC day over the last 30 days: what the provider's usage API counted, the bytes our gateways moved through this upstream, the drift (provider minus ours) and the provider's count at this upstream's cost per GB."
      actions={
        <div style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
          <Button variant="secondary" onClick={() => void fetchNow()} disabled={reconcile.isPending}>
            {reconcile.isPending ? 'Fetching…' : 'Fetch last 7 days'}
          </Button>
          <a
            className="link-button"
            href={`/admin/upstreams/${encodeURIComponent(upstream.id)}/reconciliation?format=csv`}
            download
            data-testid="reconciliation-csv"
          >
            Download CSV
          </a>
        </div>
      }
    >
      {error && <Alert kind="error">{error}</Alert>}
      {note && <Alert kind="success">{note}</Alert>}
      {q.isPending ? (
        <Spinner label="Loading..." />
      ) : q.isError ? (
        <Alert kind="error">{errorMessage(q.error, 'Failed to load the reconciliation')}</Alert>
      ) : (
        <div className="stack" data-testid="upstream-reconciliation">
          <ReconciliationChart days={days} />
          <DataTable
            testId="reconciliation-table"
            columns={COLUMNS}
            // Newest first in the table, oldest first on the chart's axis.
            rows={[...days].reverse()}
            rowKey={(d) => d.date}
            rowProps={(d) => ({ 'data-day': d.date })}
            empty={null}
          />
        </div>
      )}
    </Card>
  );
}
