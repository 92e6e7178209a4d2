import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router-dom';
import { ProtectedLayout, PublicOnly } from './components/app-shell';
import { FullPageLoading } from './components/ui';
import { ApiSettingsPage } from './pages/api-settings';
import { ForgotPasswordPage } from './pages/forgot-password';
import { LandingPage } from './pages/landing';
import { LoginPage } from './pages/login';
import { ProxiesPage } from './pages/proxies';
import { ProxyAccountsPage } from './pages/proxy-accounts';
import { ResetPasswordPage } from './pages/reset-password';
import { TopUpPage } from './pages/topup';
import { VerifyEmailPage } from './pages/verify-email';

// The pages with charts (and the admin panel) load on demand: the chart library stays out of the
// first download of every other page.
const AdminPage = lazy(() => import('./pages/admin').then((m) => ({ default: m.AdminPage })));
const BillingPage = lazy(() => import('./pages/billing').then((m) => ({ default: m.BillingPage })));
const DashboardPage = lazy(() => import('./pages/dashboard').then((m) => ({ default: m.DashboardPage })));

export function App() {
  return (
    <Suspense fallback={<FullPageLoading />}>
      <Routes>
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
        <Route path="/admin" element={<AdminPage />} />
        <Route element={<ProtectedLayout />}>
          <Route path="/dashboard" element={<DashboardPage />} />
          <Route path="/proxies" element={<ProxiesPage />} />
          <Route path="/proxy-accounts" element={<ProxyAccountsPage />} />
          <Route path="/api" element={<ApiSettingsPage />} />
          <Route path="/topup" element={<TopUpPage />} />
          <Route path="/billing" element={<BillingPage />} />
        </Route>
        <Route path="*" element={<Navigate to="/" replace />} />
      </Routes>
    </Suspense>
  );
}
