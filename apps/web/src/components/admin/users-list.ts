/** The Users tab's list state, apart from the tab's module: the panel's shared state (tab.ts) holds it. */
import { useCallback, useState } from 'react';
import type { ADMIN_USER_STATUSES } from '@proxyhub/core';
import { trpc } from '../../trpc';

export type AdminUserStatus = (typeof ADMIN_USER_STATUSES)[number];
export const PAGE_SIZE = 25;

/** The users list's filters and page, held by the panel: its tab label shows the total on every tab. */
export function useUsersList(enabled: boolean) {
  const [search, setSearchText] = useState('');
  const [status, setStatusValue] = useState<AdminUserStatus | ''>('');
  const [page, setPage] = useState(1);
  const [openUser, setOpenUser] = useState<string | null>(() => new URLSearchParams(window.location.search).get('user'));
  const query = trpc.admin.users.useQuery(
    { q: search.trim() || undefined, status: status || undefined, page, pageSize: PAGE_SIZE },
    { enabled, placeholderData: (prev) => prev },
  );
  const setSearch = useCallback((s: string) => {
    setSearchText(s);
    setPage(1);
  }, []);
  const setStatus = (s: AdminUserStatus | '') => {
    setStatusValue(s);
    setPage(1);
  };
  const showUser = (id: string | null) => {
    setOpenUser(id);
    window.history.replaceState(null, '', id ? `/admin?user=${encodeURIComponent(id)}` : '/admin');
  };
  return { query, search, setSearch, status, setStatus, page, setPage, openUser, showUser };
}
export type UsersList = ReturnType<typeof useUsersList>;
