import { useTranslation } from 'react-i18next';
import { CONNECTION_PAGES, ConnectionsTable, connectionPages, csvQuery, type ConnectionFilters } from '../components/connections-table';
import { StatementsTable } from '../components/statements-table';
import { Card, PageHeader } from '../components/ui';
import { trpc } from '../trpc';
import { usePageTitle } from '../lib/page-title';

function useUserConnections(filters: ConnectionFilters) {
  return connectionPages(trpc.usage.connections.useInfiniteQuery({ ...filters, pageSize: 100 }, CONNECTION_PAGES));
}

/** Every connection of the last 30 days: where it went, what it moved, what it was billed, how it ended. */
export function ConnectionsPage() {
  const { t } = useTranslation('dashboard');
  usePageTitle(t('connections.title'));
  return (
    <>
      <PageHeader title={t('connections.title')} subtitle={t('connections.subtitle')} />
      <Card title={t('connections.log')}>
        <ConnectionsTable testId="connections-table" query={useUserConnections} csvHref={(f) => csvQuery('/api/connections', f)} />
      </Card>
      <Card title={t('connections.statements')}>
        <StatementsTable />
      </Card>
    </>
  );
}
