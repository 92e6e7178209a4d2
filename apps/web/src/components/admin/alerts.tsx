/** The admin's alerts (providers low or dry, drift), newest first; open ones counted on the tab. */
import type { RouterOutputs } from '../../session';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { DataTable, type Column } from '../data-table';
import { Alert, Card } from '../ui';
import { when } from './format';

type AdminAlert = RouterOutputs['adminAlerts']['list']['alerts'][number];

const KIND_LABEL: Record<string, string> = { upstream_low: 'Balance low', upstream_dry: 'Balance dry', upstream_drift: 'Drift' };

const COLUMNS: Column<AdminAlert>[] = [
  { head: 'When', cell: (a) => when(a.createdAt) },
  { head: 'Kind', cell: (a) => <span data-kind={a.kind}>{KIND_LABEL[a.kind] ?? a.kind}</span> },
  { head: 'Message', cell: (a) => a.message },
  {
    head: 'State',
    cell: (a) => (a.resolvedAt ? <span className="badge badge-green">Resolved {when(a.resolvedAt)}</span> : <span className="badge badge-red">Open</span>),
  },
];

/** The list, refreshed every 30 s (the tab's count reads the same query). */
export const useAdminAlerts = (enabled: boolean) => trpc.adminAlerts.list.useQuery(undefined, { enabled, staleTime: 0, refetchInterval: 30_000 });

export function AdminAlerts() {
  const q = useAdminAlerts(true);
  return (
    <Card
      title={`Alerts (${q.data?.openCount ?? '…'} open)`}
      description="Provider accounts that went low or dry, and days whose provider count drifted from ours. Owners and finance also get them on Telegram."
    >
      {q.isError && <Alert kind="error">{errorMessage(q.error, 'Failed to load alerts')}</Alert>}
      <DataTable
        testId="alerts-table"
        columns={COLUMNS}
        rows={q.data?.alerts}
        rowKey={(a) => a.id}
        rowProps={(a) => ({ 'data-alert': a.kind })}
        empty="No alerts."
      />
    </Card>
  );
}
