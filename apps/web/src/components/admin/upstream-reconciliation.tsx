/**
 * One upstream's reconciliation (admin Upstreams tab): the provider's bytes against ours per UTC
 * day over the last 30 days, as a chart and a table with the drift and the provider's cost, the
 * same rows as CSV, and a button that fetches the provider's last 7 days now.
 */
import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { chartUnit, formatBytes, formatInUnit } from '../../lib/bytes';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, type Column } from '../data-table';
import { Alert, Button, Card, Spinner } from '../ui';

type Day = RouterOutputs['admin']['upstreamReconciliation']['days'][number];

const signed = (bytes: string) => (bytes.startsWith('-') ? `-${formatBytes(bytes.slice(1))}` : `+${formatBytes(bytes)}`);

/** A drift in percent as the language writes it, signed: "+4.00%", "+4,00 %". */
const driftPercent = (p: number) => fmt.number(p / 100, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: 'exceptZero' });

// The day stays as the UTC date it is (YYYY-MM-DD, as the CSV names it).
const columns = (t: TFunction<'network'>): Column<Day>[] => [
  { head: t('reconciliation.head.day'), cell: (d) => d.date },
  {
    head: t('reconciliation.head.provider'),
    num: true,
    cell: (d) => (d.providerBytes === null ? t('reconciliation.notFetched') : formatBytes(d.providerBytes)),
  },
  { head: t('reconciliation.head.ours'), num: true, cell: (d) => formatBytes(d.ourBytes) },
  { head: t('reconciliation.head.drift'), num: true, cell: (d) => (d.driftBytes === null ? '' : signed(d.driftBytes)) },
  { head: t('reconciliation.head.driftPercent'), num: true, cell: (d) => (d.driftPercent === null ? '' : driftPercent(d.driftPercent)) },
  { head: t('reconciliation.head.cost'), num: true, cell: (d) => (d.costCents === null ? '' : fmt.cents(d.costCents)) },
  { head: t('reconciliation.head.fetched'), cell: (d) => (d.fetchedAt ? fmt.dateTime(d.fetchedAt) : '') },
];

/** Provider and our bytes per day, in the unit the tallest bar needs (distinct ticks); a day not fetched has no provider bar. */
function ReconciliationChart({ days }: { days: Day[] }) {
  const { t } = useTranslation('network');
  const unit = chartUnit(Math.max(0, ...days.flatMap((d) => [Number(BigInt(d.ourBytes)), d.providerBytes === null ? 0 : Number(BigInt(d.providerBytes))])));
  const points = days.map((d) => ({
    label: fmt.date(`${d.date}T00:00:00Z`, { month: 'short', day: 'numeric', timeZone: 'UTC' }),
    provider: d.providerBytes === null ? null : Number(BigInt(d.providerBytes)) / unit.size,
    ours: Number(BigInt(d.ourBytes)) / unit.size,
  }));
  return (
    <div className="usage-chart" data-testid="reconciliation-chart">
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={points} margin={{ top: 16, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="label" tick={{ fontSize: 12 }} interval="preserveStartEnd" minTickGap={16} />
          <YAxis tick={{ fontSize: 12 }} width={72} tickFormatter={(v: number) => formatInUnit(v, unit.name)} />
          <Tooltip formatter={(v) => formatInUnit(Number(v), unit.name)} />
          <Legend />
          <Bar dataKey="provider" name={t('reconciliation.head.provider')} fill="#f59e0b" isAnimationActive={false} />
          <Bar dataKey="ours" name={t('reconciliation.head.ours')} fill="#4f46e5" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function UpstreamReconciliation({ upstream }: { upstream: { id: string; name: string } }) {
  const { t } = useTranslation('network');
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
      if (failed.length) setError(failed.map((d) => t('reconciliation.dayFailed', { day: d.date, error: d.error ?? t('reconciliation.failed') })).join('; '));
      else setNote(t('reconciliation.fetched', { count: r.days.filter((d) => d.status === 'fetched').length }));
      await utils.admin.upstreamReconciliation.invalidate({ id: upstream.id });
    } catch (err) {
      setError(errorMessage(err, t('reconciliation.fetchFailed')));
    }
  }
  const days = q.data?.days ?? [];
  return (
    <Card
      title={t('reconciliation.title', { name: upstream.name })}
      description={t('reconciliation.description')}
      actions={
        <div style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
          <Button variant="secondary" onClick={() => void fetchNow()} disabled={reconcile.isPending}>
            {reconcile.isPending ? t('reconciliation.fetching') : t('reconciliation.fetch')}
          </Button>
          <a
            className="link-button"
            href={`/admin/upstreams/${encodeURIComponent(upstream.id)}/reconciliation?format=csv`}
            download
            data-testid="reconciliation-csv"
          >
            {t('reconciliation.csv')}
          </a>
        </div>
      }
    >
      {error && <Alert kind="error">{error}</Alert>}
      {note && <Alert kind="success">{note}</Alert>}
      {q.isPending ? (
        <Spinner label={t('loading')} />
      ) : q.isError ? (
        <Alert kind="error">{errorMessage(q.error, t('reconciliation.loadFailed'))}</Alert>
      ) : (
        <div className="stack" data-testid="upstream-reconciliation">
          <ReconciliationChart days={days} />
          <DataTable
            testId="reconciliation-table"
            columns={columns(t)}
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
