import { QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { createTRPCReact } from '@trpc/react-query';
import superjson from 'superjson';
import type { AppRouter } from '@proxyhub/api';

/** Same-origin calls with the session cookie; mutations go out as application/json (the server's CSRF check wants that). */
const links = [
  httpBatchLink({
    url: '/trpc',
    transformer: superjson,
    fetch: (url, init) => fetch(url, { ...(init as RequestInit), credentials: 'include' }),
  }),
];

export const trpc = createTRPCReact<AppRouter>();
export const trpcClient = trpc.createClient({ links });
/** The same client without hooks, for calls made outside React (the session loader). */
export const api = createTRPCClient<AppRouter>({ links });

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
    mutations: { retry: false },
  },
});
