/** The audit log, filtered by actor, action and target, 50 a page. */
import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, Pager, pageCount, type Column } from '../data-table';
import { Card, SelectField } from '../ui';
import { FilterFields } from './filter-fields';
import { when } from './format';
import { ACTION_KEYS, auditActionLabel } from './words';

type Entry = RouterOutputs['admin']['auditLog']['entries'][number];
const PAGE_SIZE = 50;
const textFilters = (t: TFunction<'admin'>) =>
  [
    { key: 'actor', label: t('audit.actor'), placeholder: t('audit.actorPlaceholder') },
    { key: 'target', label: t('audit.target'), placeholder: t('audit.targetPlaceholder') },
  ] as const;
type Filters = Record<'actor' | 'action' | 'target', string>;
const columns = (t: TFunction<'admin'>): Column<Entry>[] => [
  { head: t('audit.when'), cell: (e) => when(e.at) },
  // The actor is data (admin:<username>, internal), never a catalogue key: not for translating.
  { head: t('audit.actor'), cell: (e) => <span translate="no">{e.actor}</span> },
  {
    head: t('audit.action'),
    cell: (e) => (
      <span title={e.action} data-action={e.action}>
        {auditActionLabel(t, e.action)}
      </span>
    ),
  },
  { head: t('audit.target'), className: 'mono', cell: (e) => e.target ?? '—' },
  { head: t('audit.from'), cell: (e) => e.sourceAddress },
  { head: t('audit.reason'), cell: (e) => e.reason ?? '—' },
];

export function AdminAuditLog() {
  const { t } = useTranslation('admin');
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
    <Card title={t('audit.title', { total: log.data?.total ?? '…' })} description={t('audit.description')}>
      <FilterFields
        fields={textFilters(t)}
        values={filters}
        onChange={(v) => {
          setFilters({ ...filters, ...v });
          setPage(1);
        }}
      >
        <SelectField label={t('audit.action')} value={filters.action} onChange={(e) => setFilter('action', e.target.value)}>
          <option value="">{t('audit.anyAction')}</option>
          {Object.entries(ACTION_KEYS).map(([action, key]) => (
            <option key={action} value={action}>
              {t(`actions.${key}`)}
            </option>
          ))}
        </SelectField>
      </FilterFields>
      <DataTable testId="audit-table" columns={columns(t)} rows={log.data?.entries} rowKey={(e) => e.id} empty={t('audit.empty')} />
      <Pager label={t('audit.pages')} page={page} pages={pageCount(log.data?.total, PAGE_SIZE)} onPage={setPage} />
    </Card>
  );
}
