/** The admin panel's gateway fleet, from its heartbeats. */
import { formatBytes } from '../../lib/bytes';
import { errorMessage } from '../../lib/errors';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, type Column } from '../data-table';
import { Alert, Card } from '../ui';
import { when } from './format';

type Gateway = RouterOutputs['admin']['gateways']['gateways'][number];
const GATEWAY_COLUMNS: Column<Gateway>[] = [
  { head: 'Gateway', className: 'mono', cell: (g) => g.id },
  { head: 'Status', cell: (g) => <span className={`badge ${g.status === 'up' ? 'badge-green' : 'badge-red'}`}>{g.status === 'up' ? 'Up' : 'Down'}</span> },
  { head: 'Version', cell: (g) => g.version },
  { head: 'Started', cell: (g) => when(g.startedAt) },
  { head: 'Last seen', cell: (g) => when(g.lastSeenAt) },
  { head: 'Tunnels', num: true, cell: (g) => g.openTunnels },
  { head: 'Up /s', num: true, cell: (g) => formatBytes(String(g.bytesPerSecUp)) },
  { head: 'Down /s', num: true, cell: (g) => formatBytes(String(g.bytesPerSecDown)) },
  { head: 'Leased', num: true, cell: (g) => formatBytes(String(g.leasedBytes)) },
  { head: 'Upstream errors', num: true, cell: (g) => g.upstreamErrors },
];

export function AdminGateways() {
  const q = trpc.admin.gateways.useQuery(undefined, { staleTime: 0, refetchInterval: 10_000 });
  return (
    <Card
      title={`Gateways (${q.data?.gateways.length ?? '…'})`}
      description="From their heartbeats (every 10 s); one silent for 60 s is down and its leases are settled."
    >
      {q.isError && <Alert kind="error">{errorMessage(q.error, 'Failed to load gateways')}</Alert>}
      <DataTable
        testId="gateways-table"
        columns={GATEWAY_COLUMNS}
        rows={q.data?.gateways}
        rowKey={(g) => g.id}
        rowProps={(g) => ({ 'data-gateway': g.id })}
        empty="No gateway has reported yet."
      />
    </Card>
  );
}
