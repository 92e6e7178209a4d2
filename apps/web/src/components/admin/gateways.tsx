/** The admin panel's gateway fleet, from its heartbeats. */
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { formatBytes } from '../../lib/bytes';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, type Column } from '../data-table';
import { Alert, Card } from '../ui';
import { when } from './format';

type Gateway = RouterOutputs['admin']['gateways']['gateways'][number];
const gatewayColumns = (t: TFunction<'network'>): Column<Gateway>[] => [
  { head: t('gateways.head.gateway'), className: 'mono', cell: (g) => g.id },
  {
    head: t('gateways.head.status'),
    cell: (g) => (
      <span className={`badge ${g.status === 'up' ? 'badge-green' : 'badge-red'}`}>{g.status === 'up' ? t('gateways.up') : t('gateways.down')}</span>
    ),
  },
  { head: t('gateways.head.version'), cell: (g) => g.version },
  { head: t('gateways.head.started'), cell: (g) => when(g.startedAt) },
  { head: t('gateways.head.lastSeen'), cell: (g) => when(g.lastSeenAt) },
  { head: t('gateways.head.tunnels'), num: true, cell: (g) => fmt.number(g.openTunnels) },
  { head: t('gateways.head.upPerSec'), num: true, cell: (g) => formatBytes(String(g.bytesPerSecUp)) },
  { head: t('gateways.head.downPerSec'), num: true, cell: (g) => formatBytes(String(g.bytesPerSecDown)) },
  { head: t('gateways.head.leased'), num: true, cell: (g) => formatBytes(String(g.leasedBytes)) },
  { head: t('gateways.head.upstreamErrors'), num: true, cell: (g) => fmt.number(g.upstreamErrors) },
];

export function AdminGateways() {
  const { t } = useTranslation('network');
  const q = trpc.admin.gateways.useQuery(undefined, { staleTime: 0, refetchInterval: 10_000 });
  return (
    <Card title={t('gateways.title', { n: q.data ? fmt.number(q.data.gateways.length) : '…' })} description={t('gateways.description')}>
      {q.isError && <Alert kind="error">{errorMessage(q.error, t('gateways.loadFailed'))}</Alert>}
      <DataTable
        testId="gateways-table"
        columns={gatewayColumns(t)}
        rows={q.data?.gateways}
        rowKey={(g) => g.id}
        rowProps={(g) => ({ 'data-gateway': g.id })}
        empty={t('gateways.empty')}
      />
    </Card>
  );
}
