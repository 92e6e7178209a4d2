/**
 * Whether this browser has been signed in before: the sign-in page says "Welcome back" only then.
 * Not a secret and not a credential (local storage holds one flag); the dashboard asks the server.
 */
const KEY = 'proxyhub.signedInBefore';

export function isReturningVisitor(): boolean {
  try {
    return localStorage.getItem(KEY) === '1';
  } catch {
    return false;
  }
}

export function rememberReturningVisitor(): void {
  try {
    localStorage.setItem(KEY, '1');
  } catch {
    // storage disabled: the sign-in page greets as on a first visit
  }
}

export function forgetReturningVisitor(): void {
  try {
    localStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}
