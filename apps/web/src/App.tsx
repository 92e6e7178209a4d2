import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Route, Routes } from 'react-router-dom';
import { PublicOnly } from './components/public-only';
import { SkipLink } from './components/public-site';
import { FullPageLoading } from './components/ui';

// Every page is its own chunk, loaded when its route is first opened: a signed-out visitor downloads
// none of the dashboard's, the proxy generator's or the admin panel's code (nor the chart library),
// nor the data layer (tRPC hooks, superjson, TanStack Query), which only the signed-in and admin
// routes load.
const DataProviders = lazy(() => import('./data-providers').then((m) => ({ default: m.DataProviders })));
const ProtectedLayout = lazy(() => import('./components/app-shell').then((m) => ({ default: m.ProtectedLayout })));
const LandingPage = lazy(() => import('./pages/landing').then((m) => ({ default: m.LandingPage })));
const LoginPage = lazy(() => import('./pages/login').then((m) => ({ default: m.LoginPage })));
const VerifyEmailPage = lazy(() => import('./pages/verify-email').then((m) => ({ default: m.VerifyEmailPage })));
const ForgotPasswordPage = lazy(() => import('./pages/forgot-password').then((m) => ({ default: m.ForgotPasswordPage })));
const ResetPasswordPage = lazy(() => import('./pages/reset-password').then((m) => ({ default: m.ResetPasswordPage })));
const AdminPage = lazy(() => import('./pages/admin').then((m) => ({ default: m.AdminPage })));
const DashboardPage = lazy(() => import('./pages/dashboard').then((m) => ({ default: m.DashboardPage })));
const ProxiesPage = lazy(() => import('./pages/proxies').then((m) => ({ default: m.ProxiesPage })));
const ProxyAccountsPage = lazy(() => import('./pages/proxy-accounts').then((m) => ({ default: m.ProxyAccountsPage })));
const ApiSettingsPage = lazy(() => import('./pages/api-settings').then((m) => ({ default: m.ApiSettingsPage })));
const TeamAcceptPage = lazy(() => import('./pages/team-accept').then((m) => ({ default: m.TeamAcceptPage })));
const TopUpPage = lazy(() => import('./pages/topup').then((m) => ({ default: m.TopUpPage })));
const ConnectionsPage = lazy(() => import('./pages/connections').then((m) => ({ default: m.ConnectionsPage })));
const BillingPage = lazy(() => import('./pages/billing').then((m) => ({ default: m.BillingPage })));
const PricingPage = lazy(() => import('./pages/pricing').then((m) => ({ default: m.PricingPage })));
const LocationsPage = lazy(() => import('./pages/locations').then((m) => ({ default: m.LocationsPage })));
const StatusPage = lazy(() => import('./pages/status').then((m) => ({ default: m.StatusPage })));
const StatementsGuidePage = lazy(() => import('./pages/statements-guide').then((m) => ({ default: m.StatementsGuidePage })));
const SitePage = lazy(() => import('./pages/site-page').then((m) => ({ default: m.SitePage })));

/** The operator's Markdown pages (content/legal/<slug>.md on the server); their titles until loaded are the public namespace's `sitePages`. */
const SITE_PAGES = ['terms', 'privacy', 'acceptable-use', 'refunds'] as const;

export function App() {
  // A new language redraws every screen, so labels, table cells and formatted figures all follow it.
  const { i18n } = useTranslation('common', { useSuspense: false });
  return (
    <>
      <SkipLink />
      <Suspense fallback={<FullPageLoading />}>
        <Routes key={i18n.language}>
          <Route
            path="/"
            element={
              <PublicOnly>
                <LandingPage />
              </PublicOnly>
            }
          />
          <Route
            path="/login"
            element={
              <PublicOnly>
                <LoginPage />
              </PublicOnly>
            }
          />
          <Route path="/verify-email" element={<VerifyEmailPage />} />
          <Route path="/forgot-password" element={<ForgotPasswordPage />} />
          <Route path="/reset-password" element={<ResetPasswordPage />} />
          <Route path="/pricing" element={<PricingPage />} />
          <Route path="/locations" element={<LocationsPage />} />
          <Route path="/status" element={<StatusPage />} />
          <Route path="/statements" element={<StatementsGuidePage />} />
          {SITE_PAGES.map((slug) => (
            <Route key={slug} path={`/${slug}`} element={<SitePage key={slug} slug={slug} />} />
          ))}
          <Route element={<DataProviders />}>
            <Route path="/admin" element={<AdminPage />} />
            <Route element={<ProtectedLayout />}>
              <Route path="/dashboard" element={<DashboardPage />} />
              <Route path="/proxies" element={<ProxiesPage />} />
              <Route path="/proxy-accounts" element={<ProxyAccountsPage />} />
              <Route path="/api" element={<ApiSettingsPage />} />
              <Route path="/topup" element={<TopUpPage />} />
              <Route path="/connections" element={<ConnectionsPage />} />
              <Route path="/billing" element={<BillingPage />} />
              <Route path="/team/accept" element={<TeamAcceptPage />} />
            </Route>
          </Route>
          <Route path="*" element={<Navigate to="/" replace />} />
        </Routes>
      </Suspense>
    </>
  );
}
