import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Alert, AuthLayout, Button, Field, BigIcon } from '../components/ui';
import { errorMessage } from '../lib/errors';
import { loadApi, loadSchemas, preloadForm } from '../lib/form-deps';
import { validate } from '../lib/validation';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [formError, setFormError] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setFormError(null);
    const failed = (err?: unknown) => setFormError(errorMessage(err, 'Failed to process request', 'Failed to send reset email. Please try again.'));
    // Validation waits for the schemas only (loaded by now if the form was focused); the client loads meanwhile.
    const api = loadApi();
    api.catch(() => undefined);
    let schemas;
    try {
      schemas = await loadSchemas();
    } catch {
      return failed();
    }
    const v = validate(schemas.forgotPasswordInput, { email });
    if (!v.ok) return setError(v.errors.email);
    setBusy(true);
    try {
      await (await api).auth.forgotPassword.mutate(v.data);
      setSentTo(v.data.email);
    } catch (err) {
      failed(err);
    } finally {
      setBusy(false);
    }
  }

  if (sentTo) {
    return (
      <AuthLayout>
        <div className="center-stack">
          <BigIcon kind="success" icon="mail" />
          <h1 className="auth-title">Check Your Email</h1>
          <p className="auth-subtitle">
            If an account exists for <strong>{sentTo}</strong>, we&apos;ve sent a password reset link.
          </p>
          <Alert kind="info">The reset link expires in 1 hour.</Alert>
          <Link to="/login" className="btn btn-secondary btn-block">
            Back to login
          </Link>
        </div>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout>
      <h1 className="auth-title">Forgot Password</h1>
      <p className="auth-subtitle">Enter your email and we&apos;ll send you a link to reset your password.</p>
      {formError && <Alert kind="error">{formError}</Alert>}
      <form className="form" onSubmit={(e) => void onSubmit(e)} onFocus={preloadForm} noValidate aria-label="Forgot password">
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          inputMode="email"
          placeholder="you@example.com"
          value={email}
          error={error}
          onChange={(e) => {
            setEmail(e.target.value);
            setError(undefined);
          }}
        />
        <Button type="submit" block loading={busy}>
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
