/** The Users tab: search and status filter, 25 a page; a user opens in place (?user=<id> links to it). */
import { useEffect, useState } from 'react';
import { gbBreakdown } from '@proxyhub/core';
import { errorMessage, isUnauthorized } from '../../lib/errors';
import type { RouterOutputs } from '../../session';
import { AdminUserDetail } from './user-detail';
import { DataTable, FilterBar, Loading, Pager, pageCount } from '../data-table';
import { Alert, Card } from '../ui';
import type { AdminShared } from './tab';
import { PAGE_SIZE, type AdminUserStatus } from './users-list';

type User = RouterOutputs['admin']['users']['users'][number];
const STATUS_LABELS: Record<AdminUserStatus, string> = { active: 'Active', unverified: 'Unverified', suspended: 'Suspended', deleted: 'Deleted' };
const STATUSES = Object.keys(STATUS_LABELS) as AdminUserStatus[];

export function UsersTab({ shared }: { shared: AdminShared }) {
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
      title={`Users (${data?.total ?? '…'})`}
      actions={
        <FilterBar
          id="user"
          filter={{ q: draft, setQ: setDraft, status: list.status, setStatus: list.setStatus }}
          search={{ label: 'Search users', placeholder: 'Search by email, name or proxy user ID' }}
          status={{ label: 'Status', all: 'All users', options: STATUSES, optionLabel: (s) => STATUS_LABELS[s] }}
          busy={query.isFetching}
        />
      }
    >
      {query.isError && !isUnauthorized(query.error) && <Alert kind="error">{errorMessage(query.error, 'Failed to load users')}</Alert>}
      <DataTable<User>
        testId="users-table"
        rows={data?.users}
        rowKey={(u) => u.id}
        loading={query.isPending ? <Loading what="users" /> : undefined}
        empty="No users found."
        columns={[
          {
            head: 'Email',
            className: 'cell-strong',
            cell: (u) => (
              <>
                <button type="button" className="link-button" onClick={() => list.showUser(u.id)}>
                  {u.email}
                </button>
                {u.status === 'suspended' && <span className="badge badge-red">Suspended</span>}
                {u.status === 'deleted' && <span className="badge badge-gray">Deleted</span>}
              </>
            ),
          },
          { head: 'Name', cell: (u) => (u.status === 'deleted' ? <span className="muted">Deleted account</span> : u.name) },
          { head: 'Credits', num: true, cell: (u) => `${gbBreakdown(u.remainingBytes, u.totalUsageBytes).remaining} GB` },
          { head: 'Usage', num: true, cell: (u) => `${gbBreakdown(u.remainingBytes, u.totalUsageBytes).used} GB` },
          {
            head: 'Auth',
            cell: (u) => (
              <span className={`badge ${u.authType === 'google' ? 'badge-blue' : 'badge-gray'}`}>{u.authType === 'google' ? 'Google' : 'Email'}</span>
            ),
          },
          {
            head: 'Verified',
            cell: (u) => (u.emailVerified ? <span className="badge badge-green">Verified</span> : <span className="badge badge-amber">Pending</span>),
          },
          { head: 'Created', cell: (u) => new Date(u.createdAt).toLocaleDateString() },
        ]}
      />
      <Pager label="Users pages" page={list.page} pages={pageCount(data?.total, PAGE_SIZE)} onPage={list.setPage} />
    </Card>
  );
}
