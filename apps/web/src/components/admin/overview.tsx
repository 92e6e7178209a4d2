/** The top of the admin panel: traffic per usage type, and the last 30 days' traffic and revenue. */
import type { UseTRPCQueryResult } from '@trpc/react-query/shared';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { centsToUsd, formatGb, plural } from '@proxyhub/core';
import { formatBytes, formatUsd } from '../../lib/bytes';
import { errorMessage, isUnauthorized } from '../../lib/errors';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable } from '../data-table';
import { Alert, Card, Spinner } from '../ui';
import { UsageChart } from '../usage-chart';
import { when } from './format';

const USAGE_LABELS: Record<string, string> = {
  normal_proxy: 'Customer proxies',
  shop_proxy_regular: 'Sold through the shop',
  shop_proxy_admin: 'Shop staff proxies',
};

export function GlobalUsage({ query }: { query: UseTRPCQueryResult<RouterOutputs['admin']['globalUsage'], unknown> }) {
  const stats = query.data?.stats;
  return (
    <section aria-label="Global usage" className="usage-grid">
      {(stats ?? Object.keys(USAGE_LABELS).map((usage_type) => ({ usage_type, total_bytes: null, total_sessions: null, last_updated: null }))).map((s) => (
        <div className="stat" key={s.usage_type} data-testid={`usage-${s.usage_type}`}>
          <span className="stat-label">{USAGE_LABELS[s.usage_type] ?? s.usage_type}</span>
          <span className="stat-value">{s.total_bytes === null ? <span className="skeleton" /> : `${formatGb(s.total_bytes)} GB`}</span>
          <span className="stat-foot">
            {s.total_sessions === null
              ? '\u00a0'
              : `${plural(s.total_sessions, 'session')} · ${s.last_updated ? `updated ${when(s.last_updated)}` : 'no traffic yet'}`}
          </span>
        </div>
      ))}
      {query.isError && !isUnauthorized(query.error) && <Alert kind="error">{errorMessage(query.error, 'Failed to load usage')}</Alert>}
    </section>
  );
}

type Country = RouterOutputs['admin']['globalHistory']['byCountry'][number];

export function AdminOverview() {
  const q = trpc.admin.globalHistory.useQuery(undefined, { staleTime: 0 });
  if (q.isPending) return <Spinner label="Loading the last 30 days..." />;
  if (q.isError) return <Alert kind="error">{errorMessage(q.error, 'Failed to load the last 30 days')}</Alert>;
  const d = q.data;
  const revenue = d.days.map((x) => ({
    label: new Date(x.day).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' }),
    topUps: (x.cryptoCents + x.codeCents) / 100,
    plans: x.planCents / 100,
  }));
  return (
    <div className="grid-2" data-testid="admin-overview">
      <Card title="Traffic, last 30 days" description={`${formatBytes(d.totals.bytes)} in 30 days, UTC`}>
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
          empty="No traffic in 30 days"
          columns={[
            { head: 'Country', cell: (c) => c.country ?? 'Unknown' },
            { head: 'Traffic', num: true, cell: (c) => formatBytes(c.bytes) },
          ]}
        />
      </Card>
      <Card
        title="Revenue, last 30 days"
        description={`$${centsToUsd(d.totals.revenueCents)}: paid crypto orders at what was paid, codes redeemed at the list price ($${centsToUsd(d.listPricePerGbCents)}/GB), and paid plan orders`}
      >
        <p className="muted" data-testid="admin-revenue-split">
          Top-ups ${centsToUsd(d.totals.topUpCents)} · Plans ${centsToUsd(d.totals.planCents)}
        </p>
        <div className="usage-chart" data-testid="admin-revenue-chart" data-total-cents={String(d.totals.revenueCents)}>
          <ResponsiveContainer width="100%" height={260}>
            <BarChart data={revenue} margin={{ top: 16, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="label" tick={{ fontSize: 12 }} interval="preserveStartEnd" minTickGap={16} />
              <YAxis tick={{ fontSize: 12 }} width={56} tickFormatter={(v: number) => formatUsd(v, true)} />
              <Tooltip formatter={(v) => formatUsd(Number(v))} />
              <Bar dataKey="topUps" name="Top-ups" stackId="revenue" fill="#16a34a" isAnimationActive={false} />
              <Bar dataKey="plans" name="Plans" stackId="revenue" fill="#2563eb" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </Card>
    </div>
  );
}
