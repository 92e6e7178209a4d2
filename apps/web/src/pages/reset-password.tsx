import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { INVALID_RESET_LINK, RESET_REDIRECT_MS } from '@proxyhub/core';
import { Alert, AuthLayout, Button, Field, BigIcon } from '../components/ui';
import { errorMessage } from '../lib/errors';
import { loadApi, loadSchemas, preloadForm } from '../lib/form-deps';
import { validate, type FieldErrors } from '../lib/validation';

type Values = { password: string; confirmPassword: string };

export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const navigate = useNavigate();
  const [values, setValues] = useState<Values>({ password: '', confirmPassword: '' });
  const [errors, setErrors] = useState<FieldErrors<keyof Values>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!done) return;
    const t = setTimeout(() => void navigate('/login', { replace: true }), RESET_REDIRECT_MS);
    return () => clearTimeout(t);
  }, [done, navigate]);

  if (!token) {
    return (
      <AuthLayout>
        <div className="center-stack">
          <BigIcon kind="error" icon="warning" />
          <h1 className="auth-title">Invalid Reset Link</h1>
          <p className="auth-subtitle" role="alert">
            {INVALID_RESET_LINK}
          </p>
          <Link to="/forgot-password" className="btn btn-primary btn-block">
            Request a new reset link
          </Link>
          <Link to="/login" className="btn btn-ghost btn-block">
            Back to login
          </Link>
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
          <Link to="/login" className="btn btn-primary btn-block">
            Sign In
          </Link>
        </div>
      </AuthLayout>
    );
  }

  function change(field: keyof Values, value: string) {
    setValues((v) => ({ ...v, [field]: value }));
    if (errors[field]) setErrors((e) => ({ ...e, [field]: undefined }));
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setFormError(null);
    const failed = (err?: unknown) => setFormError(errorMessage(err, 'Password reset failed', 'Failed to reset password. Please try again.'));
    // Validation waits for the schemas only (loaded by now if the form was focused); the client loads meanwhile.
    const api = loadApi();
    api.catch(() => undefined);
    let schemas;
    try {
      schemas = await loadSchemas();
    } catch {
      return failed();
    }
    const v = validate(schemas.resetPasswordForm, values);
    if (!v.ok) return setErrors(v.errors);
    setBusy(true);
    try {
      const r = await (await api).auth.resetPassword.mutate({ token, password: v.data.password });
      setDone(r.message);
    } catch (err) {
      failed(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout>
      <h1 className="auth-title">Reset Password</h1>
      <p className="auth-subtitle">Choose a new password for your account.</p>
      {formError && <Alert kind="error">{formError}</Alert>}
      <form className="form" onSubmit={(e) => void onSubmit(e)} onFocus={preloadForm} noValidate aria-label="Reset password">
        <Field
          label="New Password"
          name="password"
          type="password"
          autoComplete="new-password"
          value={values.password}
          error={errors.password}
          onChange={(e) => change('password', e.target.value)}
          hint="At least 8 characters with a lowercase letter, an uppercase letter and a number."
        />
        <Field
          label="Confirm Password"
          name="confirmPassword"
          type="password"
          autoComplete="new-password"
          value={values.confirmPassword}
          error={errors.confirmPassword}
          onChange={(e) => change('confirmPassword', e.target.value)}
        />
        <Button type="submit" block loading={busy}>
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
