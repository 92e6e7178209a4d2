/** The second step of a sign-in with two-factor sign-in on: a code from the app or a recovery code. */
import { useState, type FormEvent } from 'react';
import { errorMessage } from '../lib/errors';
import { loadSchemas, preloadForm } from '../lib/form-deps';
import { validate } from '../lib/validation';
import { Alert, AuthLayout, Button, Field } from './ui';

export function TwoFactorStep({ submit, onCancel, busy }: { submit: (code: string) => Promise<void>; onCancel: () => void; busy: boolean }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      const v = validate((await loadSchemas()).twoFactorLoginInput, { code });
      if (!v.ok) return setError(v.errors.code ?? 'Please enter a code');
      await submit(v.data.code);
    } catch (err) {
      setError(errorMessage(err, 'Sign-in failed'));
    }
  }
  return (
    <AuthLayout>
      <h1 className="auth-title">Two-factor sign-in</h1>
      <p className="auth-subtitle">Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
      {error && <Alert kind="error">{error}</Alert>}
      <form className="form" onSubmit={(e) => void onSubmit(e)} onFocus={preloadForm} noValidate aria-label="Two-factor code">
        <Field
          label="Authentication code"
          name="code"
          autoComplete="one-time-code"
          inputMode="numeric"
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <Button type="submit" block loading={busy}>
          Verify
        </Button>
      </form>
      <p className="auth-switch">
        <button type="button" className="link-button" onClick={onCancel}>
          Back to sign in
        </button>
      </p>
    </AuthLayout>
  );
}
