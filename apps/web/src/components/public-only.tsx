import { Navigate, useLocation } from 'react-router-dom';
import { useSignedIn } from '../session-store';

/** / and /login: a signed-in user goes to the dashboard. The page shows meanwhile, as for a visitor. */
export function PublicOnly({ children }: { children: React.ReactNode }) {
  const signedIn = useSignedIn();
  const from = (useLocation().state as { from?: string } | null)?.from;
  // Also how a fresh sign-in leaves /login: the session is set, this sends the user on.
  if (signedIn) return <Navigate to={from && from !== '/login' ? from : '/dashboard'} replace />;
  return <>{children}</>;
}
