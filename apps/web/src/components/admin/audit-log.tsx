/** The audit log, filtered by actor, action and target, 50 a page. */
import { useState } from 'react';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, Pager, pageCount, type Column } from '../data-table';
import { Card, SelectField } from '../ui';
import { FilterFields } from './filter-fields';
import { when } from './format';
import { ACTION_LABELS, auditActionLabel } from './words';

type Entry = RouterOutputs['admin']['auditLog']['entries'][number];
const PAGE_SIZE = 50;
const TEXT_FILTERS = [
  { key: 'actor', label: 'Actor', placeholder: 'admin:alice or internal' },
  { key: 'target', label: 'Target', placeholder: 'user:<id> or code:<code>' },
] as const;
type Filters = Record<'actor' | 'action' | 'target', string>;
const COLUMNS: Column<Entry>[] = [
  { head: 'When', cell: (e) => when(e.at) },
  { head: 'Actor', cell: (e) => e.actor },
  {
    head: 'Action',
    cell: (e) => (
      <span title={e.action} data-action={e.action}>
        {auditActionLabel(e.action)}
      </span>
    ),
  },
  { head: 'Target', className: 'mono', cell: (e) => e.target ?? '—' },
  { head: 'From', cell: (e) => e.sourceAddress },
  { head: 'Reason', cell: (e) => e.reason ?? '—' },
];

export function AdminAuditLog() {
  const [filters, setFilters] = useState<Filters>({ actor: '', action: '', target: '' });
  const [page, setPage] = useState(1);
  const setFilter = (key: keyof Filters, value: string) => {
    setFilters({ ...filters, [key]: value });
    setPage(1);
  };
  const log = trpc.admin.auditLog.useQuery(
    {
      actor: filters.actor.trim() || undefined,
      action: filters.action.trim() || undefined,
      target: filters.target.trim() || undefined,
      page,
      pageSize: PAGE_SIZE,
    },
    { placeholderData: (p) => p, staleTime: 0 },
  );
  return (
    <Card
      title={`Audit log (${log.data?.total ?? '…'})`}
      description="Every admin action and every change made with the internal key. Nothing edits or deletes it."
    >
      <FilterFields
        fields={TEXT_FILTERS}
        values={filters}
        onChange={(v) => {
          setFilters({ ...filters, ...v });
          setPage(1);
        }}
      >
        <SelectField label="Action" value={filters.action} onChange={(e) => setFilter('action', e.target.value)}>
          <option value="">Any action</option>
          {Object.entries(ACTION_LABELS).map(([action, label]) => (
            <option key={action} value={action}>
              {label}
            </option>
          ))}
        </SelectField>
      </FilterFields>
      <DataTable testId="audit-table" columns={COLUMNS} rows={log.data?.entries} rowKey={(e) => e.id} empty="Nothing recorded for these filters." />
      <Pager label="Audit log pages" page={page} pages={pageCount(log.data?.total, PAGE_SIZE)} onPage={setPage} />
    </Card>
  );
}
