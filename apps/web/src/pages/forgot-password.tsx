import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Alert, Button, Field, LinkButton } from '../components/ui';
import { AuthLayout, AuthNotice } from '../components/public-site';
import { errorMessage } from '../lib/errors';
import { loadApi } from '../lib/form-deps';
import { useLazyForm } from '../lib/lazy-form';
import { usePageTitle } from '../lib/page-title';

const UNEXPECTED = 'Failed to send reset email. Please try again.';

export function ForgotPasswordPage() {
  usePageTitle('Forgot Password');
  const form = useLazyForm((r) => r.forgotPassword);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const onSubmit = form.submit(async (input) => {
    try {
      await (await loadApi()).auth.forgotPassword.mutate(input);
      setSentTo(input.email);
    } catch (err) {
      form.setError(errorMessage(err, 'Failed to process request', UNEXPECTED));
    }
  }, UNEXPECTED);

  if (sentTo) {
    return (
      <AuthNotice
        kind="success"
        icon="mail"
        title="Check Your Email"
        subtitle={
          <>
            If an account exists for <strong>{sentTo}</strong>, we&apos;ve sent a password reset link.
          </>
        }
      >
        <Alert kind="info">The reset link expires in 1 hour.</Alert>
        <LinkButton to="/login" variant="secondary" block>
          Back to login
        </LinkButton>
      </AuthNotice>
    );
  }

  return (
    <AuthLayout>
      <h1 className="auth-title">Forgot Password</h1>
      <p className="auth-subtitle">Enter your email and we&apos;ll send you a link to reset your password.</p>
      {form.formError && <Alert kind="error">{form.formError}</Alert>}
      <form className="form" onSubmit={onSubmit} onFocus={form.preload} noValidate aria-label="Forgot password">
        <Field {...form.field('email')} label="Email" type="email" autoComplete="email" inputMode="email" placeholder="you@example.com" />
        <Button type="submit" block loading={form.submitting}>
          Send Reset Link
        </Button>
      </form>
      <p className="auth-switch">
        Remembered it?{' '}
        <Link to="/login" className="link">
          Back to login
        </Link>
      </p>
    </AuthLayout>
  );
}
