import { useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, NavLink, Outlet, useLocation } from 'react-router-dom';
import { NOT_A_MEMBER } from '@proxyhub/core';
import { actingAccount, forgetActingAccount, switchAccount } from '../acting-account';
import { AccountSwitcher } from './account-switcher';
import { LanguagePicker } from './language-picker';
import { useAccountLocale } from './language-settings';
import { errorMessage } from '../lib/errors';
import { rememberReturningVisitor } from '../lib/returning';
import { SESSION_KEY, useSession, useSessionActions } from '../session';
import { trpc } from '../trpc';
import { Alert, Brand, Button, FullPageLoading } from './ui';

const NAV = [
  { to: '/dashboard', label: 'dashboard', icon: 'M3 13h8V3H3zm0 8h8v-6H3zm10 0h8V11h-8zm0-18v6h8V3z' },
  { to: '/proxies', label: 'proxies', icon: 'M4 6h16M4 12h16M4 18h10' },
  {
    to: '/proxy-accounts',
    label: 'proxyAccounts',
    icon: 'M8 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm8 2a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM2 21v-2a6 6 0 0 1 12 0v2m2 0v-2a4 4 0 0 1 6-3.4',
  },
  {
    to: '/api',
    label: 'settings',
    icon: 'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zm7.4-3a7.4 7.4 0 0 0-.1-1.2l2-1.6-2-3.4-2.4 1a7.6 7.6 0 0 0-2-1.2L14.5 3h-4l-.4 2.6a7.6 7.6 0 0 0-2 1.2l-2.4-1-2 3.4 2 1.6a7.4 7.4 0 0 0 0 2.4l-2 1.6 2 3.4 2.4-1c.6.5 1.3.9 2 1.2l.4 2.6h4l.4-2.6c.7-.3 1.4-.7 2-1.2l2.4 1 2-3.4-2-1.6c.1-.4.1-.8.1-1.2z',
  },
  { to: '/connections', label: 'connections', icon: 'M4 7h16M4 12h16M4 17h10' },
  { to: '/topup', label: 'topUp', icon: 'M12 5v14M5 12h14' },
  { to: '/billing', label: 'billing', icon: 'M4 5h16v14H4zM4 9h16M8 14h4' },
] as const;

/** Protected routes: Loading while the session is checked, /login without a user, the sidebar with one. */
export function ProtectedLayout() {
  const { t } = useTranslation();
  const session = useSession();
  const location = useLocation();
  // After Logout the way out is home, not the login page (spec section 4).
  const [loggedOut, setLoggedOut] = useState(false);
  if (session.isPending) return <FullPageLoading />;
  if (session.isError) {
    // A team account this person no longer belongs to: back to their own.
    if (actingAccount() && session.error.message === NOT_A_MEMBER) switchAccount(null);
    return (
      <div className="full-page-center">
        <Alert kind="error">{errorMessage(session.error, t('shell.userInfoFailed'))}</Alert>
        <Button onClick={() => void session.refetch()}>{t('tryAgain')}</Button>
      </div>
    );
  }
  if (!session.data) return loggedOut ? <Navigate to="/" replace /> : <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  return <AppShell name={session.data.name} email={session.data.email} onLoggedOut={() => setLoggedOut(true)} />;
}

function AppShell({ name, email, onLoggedOut }: { name: string; email: string; onLoggedOut: () => void }) {
  const { t } = useTranslation();
  const { setUser } = useSessionActions();
  // The account's language on show once the session loads; a pick in the sidebar is kept on it.
  const accountLocale = useAccountLocale();
  const qc = useQueryClient();
  const [leaving, setLeaving] = useState(false);
  const [logoutError, setLogoutError] = useState<string | null>(null);
  const logout = trpc.auth.logout.useMutation();
  // On a narrow screen the links sit behind a Menu button; a link taken closes it.
  const [menuOpen, setMenuOpen] = useState(false);
  const { pathname, search } = useLocation();
  useEffect(() => setMenuOpen(false), [pathname, search]);
  // This browser has been signed in: its sign-in page may say "Welcome back" from now on.
  useEffect(rememberReturningVisitor, []);

  async function onLogout() {
    setLeaving(true);
    setLogoutError(null);
    try {
      await logout.mutateAsync();
    } catch (err) {
      // The server still holds the session: say so rather than pretend this browser is signed out.
      setLogoutError(errorMessage(err, t('shell.logoutFailed'), t('shell.logoutUnreachable')));
      setLeaving(false);
      return;
    }
    // Logout clears the user and goes home (spec section 4).
    onLoggedOut();
    forgetActingAccount();
    qc.removeQueries({ predicate: (q) => q.queryKey[0] !== SESSION_KEY[0] });
    setUser(null);
  }

  return (
    <div className="app-shell">
      <aside className="sidebar-column" aria-label={t('shell.main')}>
        <div className={`sidebar${menuOpen ? ' menu-open' : ''}`}>
          <div className="sidebar-top">
            <Brand to="/dashboard" />
          </div>
          <Button variant="secondary" className="menu-btn" aria-expanded={menuOpen} aria-controls="app-nav" onClick={() => setMenuOpen(!menuOpen)}>
            <svg viewBox="0 0 24 24" aria-hidden="true">
              <path d={menuOpen ? 'M6 6l12 12M18 6 6 18' : 'M4 7h16M4 12h16M4 17h16'} />
            </svg>
            {t('shell.menu')}
          </Button>
          <nav className="sidebar-nav" id="app-nav" aria-label={t('shell.pages')}>
            {NAV.map((item) => (
              <NavLink key={item.to} to={item.to} className={({ isActive }) => `nav-link${isActive ? ' active' : ''}`}>
                <svg viewBox="0 0 24 24" aria-hidden="true" className="nav-icon">
                  <path d={item.icon} />
                </svg>
                <span>{t(`nav.${item.label}`)}</span>
              </NavLink>
            ))}
          </nav>
          <AccountSwitcher />
          <LanguagePicker className="sidebar-language" onChosen={(l) => void accountLocale.save(l).catch(() => undefined)} />
          <div className="sidebar-user">
            <span className="avatar" aria-hidden="true">
              {name.trim().charAt(0).toUpperCase() || '?'}
            </span>
            <div className="sidebar-user-text">
              <span className="sidebar-user-name" data-testid="user-name">
                {name}
              </span>
              <span className="sidebar-user-email">{email}</span>
            </div>
            <Button variant="ghost" className="logout-btn" onClick={() => void onLogout()} loading={leaving}>
              {t('shell.logout')}
            </Button>
          </div>
          {logoutError && (
            <div className="sidebar-alert">
              <Alert kind="error" onDismiss={() => setLogoutError(null)}>
                {logoutError}
              </Alert>
            </div>
          )}
        </div>
      </aside>
      <main className="app-main" id="main">
        {/* A page's chunk loads here, under the sidebar: the shell stays on screen meanwhile. */}
        <Suspense fallback={<FullPageLoading />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
