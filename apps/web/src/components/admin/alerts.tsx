/** The admin's alerts (providers low or dry, drift), newest first; open ones counted on the tab. */
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { RouterOutputs } from '../../session';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { DataTable, type Column } from '../data-table';
import { Alert, Card } from '../ui';
import { when } from './format';

type AdminAlert = RouterOutputs['adminAlerts']['list']['alerts'][number];

const KINDS = ['upstream_low', 'upstream_dry', 'upstream_drift'] as const;
const kindLabel = (t: TFunction<'admin'>, kind: string) =>
  (KINDS as readonly string[]).includes(kind) ? t(`alerts.kinds.${kind as (typeof KINDS)[number]}`) : kind;

const columns = (t: TFunction<'admin'>): Column<AdminAlert>[] => [
  { head: t('alerts.when'), cell: (a) => when(a.createdAt) },
  { head: t('alerts.kind'), cell: (a) => <span data-kind={a.kind}>{kindLabel(t, a.kind)}</span> },
  { head: t('alerts.message'), cell: (a) => a.message },
  {
    head: t('alerts.state'),
    cell: (a) =>
      a.resolvedAt ? (
        <span className="badge badge-green">{t('alerts.resolved', { when: when(a.resolvedAt) })}</span>
      ) : (
        <span className="badge badge-red">{t('alerts.open')}</span>
      ),
  },
];

/** The list, refreshed every 30 s (the tab's count reads the same query). */
export const useAdminAlerts = (enabled: boolean) => trpc.adminAlerts.list.useQuery(undefined, { enabled, staleTime: 0, refetchInterval: 30_000 });

export function AdminAlerts() {
  const { t } = useTranslation('admin');
  const q = useAdminAlerts(true);
  return (
    <Card title={t('alerts.title', { open: q.data?.openCount ?? '…' })} description={t('alerts.description')}>
      {q.isError && <Alert kind="error">{errorMessage(q.error, t('alerts.loadFailed'))}</Alert>}
      <DataTable
        testId="alerts-table"
        columns={columns(t)}
        rows={q.data?.alerts}
        rowKey={(a) => a.id}
        rowProps={(a) => ({ 'data-alert': a.kind })}
        empty={t('alerts.empty')}
      />
    </Card>
  );
}
