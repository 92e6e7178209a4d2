import { useEffect, useSyncExternalStore } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@proxyhub/api';

export type User = inferRouterOutputs<AppRouter>['auth']['me'];

/**
 * Whether someone is signed in, known without the data layer: the signed-out pages' guard reads it
 * from a plain fetch, a sign-in on those pages writes it, and the session query (data-providers.tsx)
 * mirrors itself here. `user` is set only from tRPC answers (superjson keeps its dates), never from
 * the REST check, so it can seed the session query as it is.
 */
interface State {
  signedIn: boolean | undefined;
  user: User | null | undefined;
}

let state: State = { signedIn: undefined, user: undefined };
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const sessionState = (): State => state;

/** A sign-in (the user) or a sign-out (null). */
export function setSessionUser(user: User | null): void {
  if (state.user === user && state.signedIn === (user !== null)) return;
  state = { signedIn: user !== null, user };
  emit();
}

let checking: Promise<void> | null = null;

/** GET /auth/user once per page load: 200 with the user or 401. Any other outcome leaves it unknown (the page shows). */
function checkSession(): Promise<void> {
  checking ??= fetch('/auth/user', { credentials: 'include', headers: { accept: 'application/json' } })
    .then((r) => {
      if (state.signedIn !== undefined || (r.status !== 200 && r.status !== 401)) return;
      state = { ...state, signedIn: r.status === 200 };
      emit();
    })
    .catch(() => undefined);
  return checking;
}

/** True once a session is known to exist; false or undefined otherwise. */
export function useSignedIn(): boolean | undefined {
  useEffect(() => void checkSession(), []);
  return useSyncExternalStore(subscribeSession, () => state.signedIn);
}
