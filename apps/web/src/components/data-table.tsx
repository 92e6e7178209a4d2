/** The app's tables and their filters: one scaffold (head, rows, empty and loading rows, pager) for every list. */
import { useState, type HTMLAttributes, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Spinner } from './ui';

export interface Column<T> {
  /** A node (e.g. a heading only screen readers read) is not repeated beside narrow cells. */
  head: ReactNode;
  cell: (row: T) => ReactNode;
  /** A figure: right-aligned, head and cells. */
  num?: boolean;
  className?: string | ((row: T) => string);
}

type RowProps = HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string>;

interface DataTableProps<T> {
  columns: Column<T>[];
  /** Undefined while the first page loads. */
  rows: readonly T[] | undefined;
  rowKey: (row: T) => string;
  empty: ReactNode;
  /** Shown while rows is undefined; nothing when left out. */
  loading?: ReactNode;
  testId?: string;
  /** The table's accessible name. */
  label?: string;
  rowProps?: (row: T) => RowProps;
}

/** On a narrow screen each row becomes a card; every cell carries its column's name (`data-label`), shown beside it there. */
export function DataTable<T>({ columns, rows, rowKey, empty, loading, testId, label, rowProps }: DataTableProps<T>) {
  const note = (content: ReactNode) => (
    <tr>
      <td colSpan={columns.length} className="table-empty">
        {content}
      </td>
    </tr>
  );
  const cellClass = (c: Column<T>, row: T) =>
    [c.num ? 'num' : '', typeof c.className === 'function' ? c.className(row) : (c.className ?? '')].filter(Boolean).join(' ') || undefined;
  return (
    <div className="table-wrap">
      <table className="table" data-testid={testId} aria-label={label}>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col" className={c.num ? 'num' : undefined}>
                {c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows === undefined && loading !== undefined && note(loading)}
          {rows?.length === 0 && note(empty)}
          {rows?.map((row) => (
            <tr key={rowKey(row)} {...rowProps?.(row)}>
              {columns.map((c, i) => (
                <td key={i} className={cellClass(c, row)} data-label={typeof c.head === 'string' ? c.head || undefined : undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "Loading ..." with a spinner, for a table's first load. */
export function Loading({ what }: { what: string }) {
  const { t } = useTranslation();
  return (
    <>
      <Spinner /> {t('loadingWhat', { what })}
    </>
  );
}

/** Previous / Page n of m / Next; nothing when all fits on one page. */
export function Pager({ label, page, pages, onPage }: { label: string; page: number; pages: number; onPage: (p: number) => void }) {
  const { t } = useTranslation();
  if (pages <= 1) return null;
  return (
    <nav className="pager" aria-label={label}>
      <Button variant="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('pager.previous')}
      </Button>
      <span className="muted small">{t('pager.pageOf', { page, pages })}</span>
      <Button variant="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t('pager.next')}
      </Button>
    </nav>
  );
}

export const pageCount = (total: number | undefined, pageSize: number) => (total === undefined ? 1 : Math.max(1, Math.ceil(total / pageSize)));

/** A list's search text and status, and the query input they make (blank means no filter). */
export function useListFilter<S extends string>() {
  const [q, setQ] = useState('');
  const [status, setStatus] = useState<S | ''>('');
  return { q, setQ, status, setStatus, input: { q: q.trim() || undefined, status: status || undefined } };
}

/** The status select's words: its label, the "all" option, each status's name. */
export interface StatusChoice<S extends string> {
  label: string;
  all: string;
  options: readonly S[];
  optionLabel: (s: S) => string;
}

interface FilterBarProps<S extends string> {
  /** Prefix of the two controls' ids: `<id>-search`, `<id>-status`. */
  id: string;
  filter: { q: string; setQ: (q: string) => void; status: S | ''; setStatus: (s: S | '') => void };
  search: { label: string; placeholder: string };
  status: StatusChoice<S>;
  busy?: boolean;
}

/** A list's search box and status select (labelled for screen readers only). */
export function FilterBar<S extends string>({ id, filter, search, status, busy }: FilterBarProps<S>) {
  return (
    <div className="search">
      <label className="sr-only" htmlFor={`${id}-search`}>
        {search.label}
      </label>
      <input id={`${id}-search`} type="search" placeholder={search.placeholder} value={filter.q} onChange={(e) => filter.setQ(e.target.value)} />
      <label className="sr-only" htmlFor={`${id}-status`}>
        {status.label}
      </label>
      <select id={`${id}-status`} value={filter.status} onChange={(e) => filter.setStatus(e.target.value as S | '')}>
        <option value="">{status.all}</option>
        {status.options.map((s) => (
          <option key={s} value={s}>
            {status.optionLabel(s)}
          </option>
        ))}
      </select>
      {busy && <Spinner />}
    </div>
  );
}
