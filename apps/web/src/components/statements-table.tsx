import { Trans, useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { Statement } from '@proxyhub/core';
import { DataTable, type Column } from './data-table';
import { Alert, Spinner } from './ui';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import { trpc } from '../trpc';

const columns = (t: TFunction<'billing'>): Column<Statement>[] => [
  { head: t('statements.day'), cell: (s) => s.date },
  { head: t('statements.account'), cell: (s) => s.account.proxyUserId || s.account.id },
  { head: t('statements.connections'), num: true, cell: (s) => fmt.number(s.totals.connections) },
  { head: t('statements.billed'), num: true, cell: (s) => fmt.bytes(s.totals.billedBytes) },
  { head: t('words.status'), cell: (s) => t(s.final ? 'statements.final' : 'statements.provisional') },
  {
    head: t('statements.download'),
    cell: (s) => (
      <>
        <a href={`data:application/json,${encodeURIComponent(JSON.stringify(s))}`} download={`statement-${s.date}-${s.account.proxyUserId}.json`}>
          {t('statements.statement')}
        </a>
        {' · '}
        <a
          href={`/api/statements/${s.date}/connections.csv?account=${encodeURIComponent(s.account.id)}`}
          download={`connections-${s.date}-${s.account.proxyUserId}.csv`}
        >
          {t('statements.connectionsCsv')}
        </a>
      </>
    ),
  },
];

/** The signed daily statements of the last 30 days, each downloadable with the CSV its digest covers. */
export function StatementsTable() {
  const { t } = useTranslation('billing');
  const list = trpc.statements.list.useQuery(undefined, { staleTime: 0 });
  return (
    <>
      <p className="card-description">
        <Trans
          t={t}
          i18nKey="statements.intro"
          components={{
            key: <a href="/api/statements/key" />,
            how: <a href="/statements" />,
          }}
        />
      </p>
      {list.error ? <Alert kind="error">{errorMessage(list.error, t('statements.loadFailed'))}</Alert> : null}
      <DataTable
        testId="statements-table"
        columns={columns(t)}
        rows={list.data?.statements}
        rowKey={(s) => `${s.date}-${s.account.id}`}
        rowProps={() => ({ 'data-testid': 'statement-row' })}
        loading={<Spinner label={t('words.loading')} />}
        empty={t('statements.empty')}
      />
    </>
  );
}
