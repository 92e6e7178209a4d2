import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@proxyhub/api';
import { isUnauthorized } from './lib/errors';
import type { User } from './session-store';
import { api } from './trpc';

export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type { User };

export const SESSION_KEY = ['session'] as const;

/** The session call: a user, or null when nobody is signed in (UNAUTHORIZED is an answer, not a failure). */
async function loadSession(): Promise<User | null> {
  try {
    return await api.auth.me.query();
  } catch (err) {
    if (isUnauthorized(err)) return null;
    throw err;
  }
}

/** How often a page that shows the balance re-reads it while the tab is visible. */
export const LIVE_REFRESH_MS = 10_000;

/** `live`: re-read every LIVE_REFRESH_MS while the tab is visible and on focus (balances that move with traffic). */
export function useSession(opts: { live?: boolean } = {}) {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: loadSession,
    ...(opts.live ? { refetchInterval: LIVE_REFRESH_MS, refetchOnWindowFocus: true } : {}),
  });
}

export function useSessionActions() {
  const qc = useQueryClient();
  return useMemo(
    () => ({
      setUser: (user: User | null) => qc.setQueryData(SESSION_KEY, user),
      /** Re-reads the user (after a redemption, a batch, a payment). */
      refresh: () => qc.invalidateQueries({ queryKey: SESSION_KEY }),
    }),
    [qc],
  );
}
