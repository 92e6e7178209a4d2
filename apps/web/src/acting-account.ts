import { ACCOUNT_HEADER } from '@proxyhub/core';

/**
 * The team account the person chose in the sidebar (null: their own). Kept in this tab's session
 * storage, so another tab can act on another account; every tRPC call carries it as a header.
 */
const KEY = 'proxyhub.actingAccount';

export function actingAccount(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

/** Switches the account and reloads, so no page keeps another account's data. */
export function switchAccount(accountId: string | null, to = '/dashboard'): void {
  if (accountId) sessionStorage.setItem(KEY, accountId);
  else sessionStorage.removeItem(KEY);
  window.location.assign(to);
}

export function actingHeaders(): Record<string, string> {
  const id = actingAccount();
  return id ? { [ACCOUNT_HEADER]: id } : {};
}

/** Signing out: the next person in this tab starts on their own account. */
export function forgetActingAccount(): void {
  sessionStorage.removeItem(KEY);
}
