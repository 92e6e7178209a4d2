/** The top of the admin panel: traffic per usage type, and the last 30 days' traffic and revenue. */
import type { UseTRPCQueryResult } from '@trpc/react-query/shared';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatBytes, formatUsd } from '../../lib/bytes';
import { errorMessage, isUnauthorized } from '../../lib/errors';
import { fmt } from '../../lib/format';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable } from '../data-table';
import { Alert, Card, Spinner } from '../ui';
import { UsageChart } from '../usage-chart';
import { when } from './format';

const USAGE_TYPES = ['normal_proxy', 'shop_proxy_regular', 'shop_proxy_admin'] as const;
const isUsageType = (s: string): s is (typeof USAGE_TYPES)[number] => (USAGE_TYPES as readonly string[]).includes(s);

export function GlobalUsage({ query }: { query: UseTRPCQueryResult<RouterOutputs['admin']['globalUsage'], unknown> }) {
  const { t } = useTranslation('admin');
  const stats = query.data?.stats;
  return (
    <section aria-label={t('overview.globalUsage')} className="usage-grid">
      {(stats ?? USAGE_TYPES.map((usage_type) => ({ usage_type, total_bytes: null, total_sessions: null, last_updated: null }))).map((s) => (
        <div className="stat" key={s.usage_type} data-testid={`usage-${s.usage_type}`}>
          <span className="stat-label">{isUsageType(s.usage_type) ? t(`overview.usage.${s.usage_type}`) : s.usage_type}</span>
          <span className="stat-value">{s.total_bytes === null ? <span className="skeleton" /> : fmt.gb(s.total_bytes)}</span>
          <span className="stat-foot">
            {s.total_sessions === null
              ? '\u00a0'
              : `${t('overview.sessions', { count: s.total_sessions })} · ${s.last_updated ? t('overview.updated', { when: when(s.last_updated) }) : t('overview.noTraffic')}`}
          </span>
        </div>
      ))}
      {query.isError && !isUnauthorized(query.error) && <Alert kind="error">{errorMessage(query.error, t('overview.usageFailed'))}</Alert>}
    </section>
  );
}

type Country = RouterOutputs['admin']['globalHistory']['byCountry'][number];

export function AdminOverview() {
  const { t } = useTranslation('admin');
  const q = trpc.admin.globalHistory.useQuery(undefined, { staleTime: 0 });
  if (q.isPending) return <Spinner label={t('overview.loading')} />;
  if (q.isError) return <Alert kind="error">{errorMessage(q.error, t('overview.failed'))}</Alert>;
  const d = q.data;
  const revenue = d.days.map((x) => ({
    label: fmt.date(x.day, { month: 'short', day: 'numeric', timeZone: 'UTC' }),
    topUps: (x.cryptoCents + x.codeCents) / 100,
    plans: x.planCents / 100,
  }));
  return (
    <div className="grid-2" data-testid="admin-overview">
      <Card title={t('overview.trafficTitle')} description={t('overview.inThirtyDays', { total: formatBytes(d.totals.bytes) })}>
        <UsageChart
          points={d.days.map((x) => ({ start: x.day, bytesUp: '0', bytesDown: x.bytes }))}
          granularity="day"
          totalBytes={BigInt(d.totals.bytes)}
          testId="admin-traffic-chart"
        />
        <DataTable<Country>
          testId="admin-by-country"
          rows={d.byCountry}
          rowKey={(c) => c.country ?? ''}
          empty={t('overview.noCountryTraffic')}
          columns={[
            { head: t('overview.country'), cell: (c) => c.country ?? t('overview.unknown') },
            { head: t('overview.traffic'), num: true, cell: (c) => formatBytes(c.bytes) },
          ]}
        />
      </Card>
      <Card
        title={t('overview.revenueTitle')}
        description={t('overview.revenueDescription', { total: fmt.cents(d.totals.revenueCents), listPrice: fmt.cents(d.listPricePerGbCents) })}
      >
        <p className="muted" data-testid="admin-revenue-split">
          {t('overview.split', { topUps: fmt.cents(d.totals.topUpCents), plans: fmt.cents(d.totals.planCents) })}
        </p>
        <div className="usage-chart" data-testid="admin-revenue-chart" data-total-cents={String(d.totals.revenueCents)}>
          <ResponsiveContainer width="100%" height={260}>
            <BarChart data={revenue} margin={{ top: 16, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="label" tick={{ fontSize: 12 }} interval="preserveStartEnd" minTickGap={16} />
              <YAxis tick={{ fontSize: 12 }} width={56} tickFormatter={(v: number) => formatUsd(v, true)} />
              <Tooltip formatter={(v) => formatUsd(Number(v))} />
              <Bar dataKey="topUps" name={t('overview.topUps')} stackId="revenue" fill="#16a34a" isAnimationActive={false} />
              <Bar dataKey="plans" name={t('overview.plans')} stackId="revenue" fill="#2563eb" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </Card>
    </div>
  );
}
