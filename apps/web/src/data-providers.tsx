import { QueryClientProvider } from '@tanstack/react-query';
import { Outlet } from 'react-router-dom';
import { SESSION_KEY, type User } from './session';
import { sessionState, setSessionUser, subscribeSession } from './session-store';
import { queryClient, trpc, trpcClient } from './trpc';

// The session query and the plain session state (what the signed-out pages' guard reads) say the
// same thing: a sign-in on /login seeds the query (the dashboard shows without asking again), and
// a logout, an expiry or a deletion seen by the query reaches the guard.
const seed = sessionState().user;
if (seed !== undefined) queryClient.setQueryData(SESSION_KEY, seed);
subscribeSession(() => {
  const { user } = sessionState();
  if (user !== undefined && queryClient.getQueryData(SESSION_KEY) !== user) queryClient.setQueryData(SESSION_KEY, user);
});
queryClient.getQueryCache().subscribe((e) => {
  if (e.type === 'updated' && e.action.type === 'success' && e.query.queryKey[0] === SESSION_KEY[0]) {
    setSessionUser((e.query.state.data as User | null | undefined) ?? null);
  }
});

/** The data layer (tRPC hooks, the query cache) around the signed-in and admin routes only. */
export function DataProviders() {
  return (
    <trpc.Provider client={trpcClient} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        <Outlet />
      </QueryClientProvider>
    </trpc.Provider>
  );
}
