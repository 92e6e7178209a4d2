import { createTRPCClient, httpBatchLink } from '@trpc/client';
import superjson from 'superjson';
import type { AppRouter } from '@proxyhub/api';
import { actingHeaders } from './acting-account';

/**
 * The tRPC client without React: the signed-out forms import this module when used (not on open),
 * so a visitor who only reads a page downloads neither the client nor superjson.
 * Same-origin calls with the session cookie; mutations go out as application/json (the server's CSRF check wants that).
 */
export const links = [
  httpBatchLink({
    url: '/trpc',
    transformer: superjson,
    // The team account chosen in the sidebar (docs/teams.md); none: the person's own.
    headers: actingHeaders,
    fetch: (url, init) => fetch(url, { ...(init as RequestInit), credentials: 'include' }),
  }),
];

export const api = createTRPCClient<AppRouter>({ links });
