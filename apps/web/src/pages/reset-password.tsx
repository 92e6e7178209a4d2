import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { INVALID_RESET_LINK, RESET_REDIRECT_MS } from '@proxyhub/core';
import { Alert, Button, BigIcon, Field, LinkButton, Spinner } from '../components/ui';
import { AuthLayout } from '../components/public-site';
import { errorMessage } from '../lib/errors';
import { loadApi } from '../lib/form-deps';
import { PASSWORD_HINT, useLazyForm } from '../lib/lazy-form';
import { resetLinkValid } from '../lib/public-calls';
import { usePageTitle } from '../lib/page-title';

const UNEXPECTED = 'Failed to reset password. Please try again.';

export function ResetPasswordPage() {
  usePageTitle('Reset Password');
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const navigate = useNavigate();
  const form = useLazyForm((r) => r.resetPassword);
  const [done, setDone] = useState<string | null>(null);
  // The link is checked as the page opens, so a dead one is said before any typing. If the check
  // itself fails (network, rate limit) the form shows and the reset's own answer says the rest.
  const [link, setLink] = useState<'checking' | 'valid' | 'invalid'>(token ? 'checking' : 'invalid');
  useEffect(() => {
    if (!token) return;
    let live = true;
    resetLinkValid(token).then(
      (valid) => live && setLink(valid ? 'valid' : 'invalid'),
      () => live && setLink('valid'),
    );
    return () => {
      live = false;
    };
  }, [token]);

  useEffect(() => {
    if (!done) return;
    const t = setTimeout(() => void navigate('/login', { replace: true }), RESET_REDIRECT_MS);
    return () => clearTimeout(t);
  }, [done, navigate]);

  if (link === 'checking') {
    return (
      <AuthLayout>
        <div className="center-stack" aria-live="polite">
          <span className="big-icon big-icon-info" aria-hidden="true">
            <Spinner />
          </span>
          <h1 className="auth-title">Checking Your Link</h1>
          <p className="auth-subtitle">Please wait while we check your reset link...</p>
        </div>
      </AuthLayout>
    );
  }

  if (link === 'invalid') {
    return (
      <AuthLayout>
        <div className="center-stack">
          <BigIcon kind="error" icon="warning" />
          <h1 className="auth-title">Invalid Reset Link</h1>
          <p className="auth-subtitle" role="alert">
            {INVALID_RESET_LINK}
          </p>
          <LinkButton to="/forgot-password" block>
            Request a new reset link
          </LinkButton>
          <LinkButton to="/login" variant="ghost" block>
            Back to login
          </LinkButton>
        </div>
      </AuthLayout>
    );
  }

  if (done) {
    return (
      <AuthLayout>
        <div className="center-stack" aria-live="polite">
          <BigIcon kind="success" icon="check" />
          <h1 className="auth-title">Password Reset!</h1>
          <p className="auth-subtitle">{done}</p>
          <p className="muted small">Redirecting to sign in...</p>
          <LinkButton to="/login" block>
            Sign In
          </LinkButton>
        </div>
      </AuthLayout>
    );
  }

  const onSubmit = form.submit(async ({ password }) => {
    try {
      setDone((await (await loadApi()).auth.resetPassword.mutate({ token, password })).message);
    } catch (err) {
      form.setError(errorMessage(err, 'Password reset failed', UNEXPECTED));
    }
  }, UNEXPECTED);

  return (
    <AuthLayout>
      <h1 className="auth-title">Reset Password</h1>
      <p className="auth-subtitle">Choose a new password for your account.</p>
      {form.formError && <Alert kind="error">{form.formError}</Alert>}
      <form className="form" onSubmit={onSubmit} onFocus={form.preload} noValidate aria-label="Reset password">
        <Field {...form.field('password')} label="New Password" type="password" autoComplete="new-password" hint={PASSWORD_HINT} />
        <Field {...form.field('confirmPassword')} label="Confirm Password" type="password" autoComplete="new-password" />
        <Button type="submit" block loading={form.submitting}>
          Reset Password
        </Button>
      </form>
      <p className="auth-switch">
        <Link to="/login" className="link">
          Back to login
        </Link>
      </p>
    </AuthLayout>
  );
}
