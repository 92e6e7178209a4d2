import { QueryClient } from '@tanstack/react-query';
import { createTRPCReact } from '@trpc/react-query';
import type { AppRouter } from '@proxyhub/api';
import { links } from './api';

/** The hooks and the query cache: loaded with the signed-in and admin pages only (data-providers.tsx). */
export const trpc = createTRPCReact<AppRouter>();
export const trpcClient = trpc.createClient({ links });
export { api } from './api';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
    mutations: { retry: false },
  },
});
