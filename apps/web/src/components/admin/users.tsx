/** The Users tab: search and status filter, 25 a page; a user opens in place (?user=<id> links to it). */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ADMIN_USER_STATUSES, gbBreakdown } from '@proxyhub/core';
import { errorMessage, isUnauthorized } from '../../lib/errors';
import { fmt } from '../../lib/format';
import type { RouterOutputs } from '../../session';
import { AdminUserDetail } from './user-detail';
import { DataTable, FilterBar, Loading, Pager, pageCount } from '../data-table';
import { Alert, Card } from '../ui';
import type { AdminShared } from './tab';
import { PAGE_SIZE } from './users-list';
import { gbText } from './words';

type User = RouterOutputs['admin']['users']['users'][number];

export function UsersTab({ shared }: { shared: AdminShared }) {
  const { t } = useTranslation('admin');
  const list = shared.users;
  const { query, search, setSearch } = list;
  const [draft, setDraft] = useState(search);
  useEffect(() => {
    const t = setTimeout(() => {
      if (draft !== search) setSearch(draft);
    }, 300);
    return () => clearTimeout(t);
  }, [draft, search, setSearch]);

  if (list.openUser) return <AdminUserDetail id={list.openUser} onBack={() => list.showUser(null)} />;
  const data = query.data;
  return (
    <Card
      title={t('users.title', { total: data?.total ?? '…' })}
      actions={
        <FilterBar
          id="user"
          filter={{ q: draft, setQ: setDraft, status: list.status, setStatus: list.setStatus }}
          search={{ label: t('users.search'), placeholder: t('users.searchPlaceholder') }}
          status={{ label: t('users.status'), all: t('users.all'), options: ADMIN_USER_STATUSES, optionLabel: (s) => t(`userStatus.${s}`) }}
          busy={query.isFetching}
        />
      }
    >
      {query.isError && !isUnauthorized(query.error) && <Alert kind="error">{errorMessage(query.error, t('users.loadFailed'))}</Alert>}
      <DataTable<User>
        testId="users-table"
        rows={data?.users}
        rowKey={(u) => u.id}
        loading={query.isPending ? <Loading what={t('users.loadingWhat')} /> : undefined}
        empty={t('users.empty')}
        columns={[
          {
            head: t('users.email'),
            className: 'cell-strong',
            cell: (u) => (
              <>
                <button type="button" className="link-button" onClick={() => list.showUser(u.id)}>
                  {u.email}
                </button>
                {u.status === 'suspended' && <span className="badge badge-red">{t('userStatus.suspended')}</span>}
                {u.status === 'deleted' && <span className="badge badge-gray">{t('userStatus.deleted')}</span>}
              </>
            ),
          },
          { head: t('users.name'), cell: (u) => (u.status === 'deleted' ? <span className="muted">{t('users.deletedAccount')}</span> : u.name) },
          { head: t('users.credits'), num: true, cell: (u) => gbText(gbBreakdown(u.remainingBytes, u.totalUsageBytes).remaining) },
          { head: t('users.usage'), num: true, cell: (u) => gbText(gbBreakdown(u.remainingBytes, u.totalUsageBytes).used) },
          {
            head: t('users.auth'),
            cell: (u) => (
              <span className={`badge ${u.authType === 'google' ? 'badge-blue' : 'badge-gray'}`}>
                {u.authType === 'google' ? t('users.google') : t('users.emailAuth')}
              </span>
            ),
          },
          {
            head: t('users.verified'),
            cell: (u) =>
              u.emailVerified ? (
                <span className="badge badge-green">{t('users.verified')}</span>
              ) : (
                <span className="badge badge-amber">{t('users.pending')}</span>
              ),
          },
          { head: t('users.created'), cell: (u) => fmt.date(u.createdAt) },
        ]}
      />
      <Pager label={t('users.pages')} page={list.page} pages={pageCount(data?.total, PAGE_SIZE)} onPage={list.setPage} />
    </Card>
  );
}
