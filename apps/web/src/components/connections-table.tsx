import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { CONNECTION_OUTCOMES, type ConnectionOutcome, type ConnectionRow } from '@proxyhub/core';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Field, SelectField, Spinner } from './ui';
import { formatBytes } from '../lib/bytes';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';

export interface ConnectionFilters {
  outcome?: ConnectionOutcome;
  target?: string;
}

/** Each outcome in the words a customer uses (the dashboard catalogue's `outcomes`); the code itself is in the tooltip and the CSV. */
const columns = (t: TFunction<'dashboard'>): Column<ConnectionRow>[] => [
  { head: t('connections.started'), cell: (c) => fmt.dateTime(c.startedAt) },
  { head: t('connections.protocol'), cell: (c) => c.protocol },
  { head: t('connections.target'), cell: (c) => c.target },
  {
    head: t('connections.location'),
    cell: (c) => `${[c.country, c.state, c.city].filter(Boolean).join('-') || '—'}${c.zip ? ` ZIP ${c.zip}` : ''}${c.asn ? ` AS${c.asn}` : ''}`,
  },
  { head: t('connections.session'), cell: (c) => c.session },
  { head: t('connections.up'), num: true, cell: (c) => formatBytes(c.bytesUp) },
  { head: t('connections.down'), num: true, cell: (c) => formatBytes(c.bytesDown) },
  { head: t('connections.billed'), num: true, cell: (c) => formatBytes(c.billedBytes) },
  {
    head: t('connections.outcome'),
    cell: (c) => (
      <span title={c.reason ? `${c.outcome}: ${c.reason}` : c.outcome} data-outcome={c.outcome}>
        {t(`outcomes.${c.outcome}`)}
      </span>
    ),
  },
];

type ConnectionPages = ReturnType<Props['query']>;

/** A connection log's infinite query (the user's or an admin's) as the table reads it. */
export function connectionPages(list: {
  isPending: boolean;
  data?: { pages: { connections: ConnectionRow[] }[] };
  error: unknown;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}): ConnectionPages {
  return {
    rows: list.isPending ? undefined : (list.data?.pages.flatMap((p) => p.connections) ?? []),
    error: list.error,
    hasMore: list.hasNextPage,
    loadingMore: list.isFetchingNextPage,
    more: () => void list.fetchNextPage(),
  };
}

/** Each page of a connection log: 100 rows, read afresh. */
export const CONNECTION_PAGES = { getNextPageParam: (page: { nextCursor?: string | null }) => page.nextCursor ?? undefined, staleTime: 0 };

interface Props {
  testId: string;
  /** The pages read so far under these filters. */
  query: (filters: ConnectionFilters) => {
    rows: ConnectionRow[] | undefined;
    error: unknown;
    hasMore: boolean;
    loadingMore: boolean;
    more(): void;
  };
  /** The CSV download of the whole range under these filters. */
  csvHref: (filters: ConnectionFilters) => string;
}

/** Filters, pages and the CSV link over a connection log. */
export function ConnectionsTable({ testId, query, csvHref }: Props) {
  // Not suspending: the admin panel opens a user's log inside its own page, which must not go back to loading.
  const { t, ready } = useTranslation('dashboard', { useSuspense: false });
  const [outcome, setOutcome] = useState<ConnectionOutcome | ''>('');
  const [target, setTarget] = useState('');
  const filters: ConnectionFilters = { ...(outcome ? { outcome } : {}), ...(target.trim() ? { target: target.trim() } : {}) };
  const q = query(filters);
  if (!ready) return <Spinner />;
  return (
    <>
      <div className="filters">
        <SelectField label={t('connections.outcome')} name="outcome" value={outcome} onChange={(e) => setOutcome(e.target.value as ConnectionOutcome | '')}>
          <option value="">{t('connections.all')}</option>
          {CONNECTION_OUTCOMES.map((o) => (
            <option key={o} value={o}>
              {t(`outcomes.${o}`)}
            </option>
          ))}
        </SelectField>
        <Field label={t('connections.target')} name="target" placeholder="example.com" value={target} onChange={(e) => setTarget(e.target.value)} />
        <a className="btn btn-secondary" href={csvHref(filters)} download>
          {t('connections.downloadCsv')}
        </a>
      </div>
      {q.error ? <Alert kind="error">{errorMessage(q.error, t('connections.loadFailed'))}</Alert> : null}
      <DataTable
        testId={testId}
        columns={columns(t)}
        rows={q.rows}
        rowKey={(c) => c.id}
        rowProps={() => ({ 'data-testid': 'connection-row' })}
        loading={<Spinner label={t('connections.loading')} />}
        empty={t('connections.empty')}
      />
      {q.hasMore && (
        <Button variant="secondary" loading={q.loadingMore} onClick={q.more}>
          {t('connections.loadMore')}
        </Button>
      )}
    </>
  );
}

export function csvQuery(base: string, filters: ConnectionFilters): string {
  const p = new URLSearchParams({ format: 'csv', ...filters });
  return `${base}?${p.toString()}`;
}
