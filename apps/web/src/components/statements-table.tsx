import type { Statement } from '@proxyhub/core';
import { DataTable, type Column } from './data-table';
import { Alert, Spinner } from './ui';
import { formatBytes } from '../lib/bytes';
import { errorMessage } from '../lib/errors';
import { trpc } from '../trpc';

const COLUMNS: Column<Statement>[] = [
  { head: 'Day (UTC)', cell: (s) => s.date },
  { head: 'Account', cell: (s) => s.account.proxyUserId || s.account.id },
  { head: 'Connections', num: true, cell: (s) => s.totals.connections.toLocaleString() },
  { head: 'Billed', num: true, cell: (s) => formatBytes(s.totals.billedBytes) },
  { head: 'Status', cell: (s) => (s.final ? 'Final' : 'Provisional') },
  {
    head: 'Download',
    cell: (s) => (
      <>
        <a href={`data:application/json,${encodeURIComponent(JSON.stringify(s))}`} download={`statement-${s.date}-${s.account.proxyUserId}.json`}>
          Statement
        </a>
        {' · '}
        <a
          href={`/api/statements/${s.date}/connections.csv?account=${encodeURIComponent(s.account.id)}`}
          download={`connections-${s.date}-${s.account.proxyUserId}.csv`}
        >
          Connections CSV
        </a>
      </>
    ),
  },
];

/** The signed daily statements of the last 30 days, each downloadable with the CSV its digest covers. */
export function StatementsTable() {
  const list = trpc.statements.list.useQuery(undefined, { staleTime: 0 });
  return (
    <>
      <p className="card-description">
        One per proxy account and UTC day with traffic, signed with our key (<a href="/api/statements/key">public key</a>): the statement holds a digest of that
        day&apos;s connection CSV and of the day before&apos;s statement, so a changed byte in either no longer matches the signature. Any Ed25519 tool can
        check one: <a href="/statements">how to check a statement</a> explains what is signed and gives a verifier to run.
      </p>
      {list.error ? <Alert kind="error">{errorMessage(list.error, 'Failed to load statements')}</Alert> : null}
      <DataTable
        testId="statements-table"
        columns={COLUMNS}
        rows={list.data?.statements}
        rowKey={(s) => `${s.date}-${s.account.id}`}
        rowProps={() => ({ 'data-testid': 'statement-row' })}
        loading={<Spinner label="Loading..." />}
        empty="No statements yet: one is made for each day with traffic."
      />
    </>
  );
}
