import { useState } from 'react';
import { CONNECTION_OUTCOMES, type ConnectionOutcome, type ConnectionRow } from '@proxyhub/core';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Field, SelectField, Spinner } from './ui';
import { formatBytes } from '../lib/bytes';
import { errorMessage } from '../lib/errors';

export interface ConnectionFilters {
  outcome?: ConnectionOutcome;
  target?: string;
}

/** What each outcome means, in the words a customer uses; the code itself is in the tooltip and the CSV. */
export const OUTCOME_WORDS: Record<ConnectionOutcome, string> = {
  ok: 'Completed',
  refused: 'Refused by the gateway',
  target_unreachable: 'Site unreachable',
  upstream_failed: 'Exit network failed',
  cut_off: 'Cut off: out of data',
  client_closed: 'Closed by your client',
  timeout: 'Timed out',
  blocked: 'Blocked destination',
  upstream_unavailable: 'No exit available',
  rotated: 'Closed for a new IP',
};

const COLUMNS: Column<ConnectionRow>[] = [
  { head: 'Started', cell: (c) => new Date(c.startedAt).toLocaleString() },
  { head: 'Protocol', cell: (c) => c.protocol },
  { head: 'Target', cell: (c) => c.target },
  {
    head: 'Location',
    cell: (c) => `${[c.country, c.state, c.city].filter(Boolean).join('-') || '—'}${c.zip ? ` ZIP ${c.zip}` : ''}${c.asn ? ` AS${c.asn}` : ''}`,
  },
  { head: 'Session', cell: (c) => c.session },
  { head: 'Up', num: true, cell: (c) => formatBytes(c.bytesUp) },
  { head: 'Down', num: true, cell: (c) => formatBytes(c.bytesDown) },
  { head: 'Billed', num: true, cell: (c) => formatBytes(c.billedBytes) },
  {
    head: 'Outcome',
    cell: (c) => (
      <span title={c.reason ? `${c.outcome}: ${c.reason}` : c.outcome} data-outcome={c.outcome}>
        {OUTCOME_WORDS[c.outcome]}
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
  const [outcome, setOutcome] = useState<ConnectionOutcome | ''>('');
  const [target, setTarget] = useState('');
  const filters: ConnectionFilters = { ...(outcome ? { outcome } : {}), ...(target.trim() ? { target: target.trim() } : {}) };
  const q = query(filters);
  return (
    <>
      <div className="filters">
        <SelectField label="Outcome" name="outcome" value={outcome} onChange={(e) => setOutcome(e.target.value as ConnectionOutcome | '')}>
          <option value="">All</option>
          {CONNECTION_OUTCOMES.map((o) => (
            <option key={o} value={o}>
              {OUTCOME_WORDS[o]}
            </option>
          ))}
        </SelectField>
        <Field label="Target" name="target" placeholder="example.com" value={target} onChange={(e) => setTarget(e.target.value)} />
        <a className="btn btn-secondary" href={csvHref(filters)} download>
          Download CSV
        </a>
      </div>
      {q.error ? <Alert kind="error">{errorMessage(q.error, 'Failed to load connections')}</Alert> : null}
      <DataTable
        testId={testId}
        columns={COLUMNS}
        rows={q.rows}
        rowKey={(c) => c.id}
        rowProps={() => ({ 'data-testid': 'connection-row' })}
        loading={<Spinner label="Loading..." />}
        empty="No connections in this range."
      />
      {q.hasMore && (
        <Button variant="secondary" loading={q.loadingMore} onClick={q.more}>
          Load more
        </Button>
      )}
    </>
  );
}

export function csvQuery(base: string, filters: ConnectionFilters): string {
  const p = new URLSearchParams({ format: 'csv', ...filters });
  return `${base}?${p.toString()}`;
}
