import { Navigate, Route, Routes } from 'react-router-dom';
import { ProtectedLayout, PublicOnly } from './components/app-shell';
import { AdminPage } from './pages/admin';
import { ApiSettingsPage } from './pages/api-settings';
import { BillingPage } from './pages/billing';
import { DashboardPage } from './pages/dashboard';
import { ForgotPasswordPage } from './pages/forgot-password';
import { LandingPage } from './pages/landing';
import { LoginPage } from './pages/login';
import { ProxiesPage } from './pages/proxies';
import { ResetPasswordPage } from './pages/reset-password';
import { TopUpPage } from './pages/topup';
import { VerifyEmailPage } from './pages/verify-email';

export function App() {
  return (
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
        <Route path="/api" element={<ApiSettingsPage />} />
        <Route path="/topup" element={<TopUpPage />} />
        <Route path="/billing" element={<BillingPage />} />
      </Route>
      <Route path="*" element={<Navigate to="/" replace />} />
    </Routes>
  );
}
