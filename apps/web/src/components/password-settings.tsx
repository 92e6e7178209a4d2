import { useState, type FormEvent } from 'react';
import { changePasswordForm } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { validate, type FieldErrors } from '../lib/validation';
import { useSession } from '../session';
import { trpc } from '../trpc';
import { Alert, Button, Card, Field } from './ui';

type Values = { currentPassword: string; newPassword: string; confirmPassword: string };
const EMPTY: Values = { currentPassword: '', newPassword: '', confirmPassword: '' };

/** A new password proven by the current one; the server signs out every other session. */
export function PasswordSettings() {
  const user = useSession().data!;
  const change = trpc.auth.changePassword.useMutation();
  const [values, setValues] = useState<Values>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors<keyof Values>>({});
  const [result, setResult] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  if (user.authType === 'google') {
    return (
      <Card title="Password" description="You sign in with Google, so your account has no password.">
        <p className="muted small">To set one, use &quot;Forgot password?&quot; on the sign-in page: we email you a link.</p>
      </Card>
    );
  }

  function set(field: keyof Values, value: string) {
    setValues((v) => ({ ...v, [field]: value }));
    if (errors[field]) setErrors((e) => ({ ...e, [field]: undefined }));
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setResult(null);
    const v = validate(changePasswordForm, values);
    if (!v.ok) return setErrors(v.errors);
    try {
      const r = await change.mutateAsync({ currentPassword: v.data.currentPassword, newPassword: v.data.newPassword });
      setValues(EMPTY);
      setResult({ kind: 'success', text: r.message });
    } catch (err) {
      setResult({ kind: 'error', text: errorMessage(err, 'Failed to change the password') });
    }
  }

  return (
    <Card title="Password" description="Changing it signs you out everywhere else; this browser stays signed in.">
      <form className="form" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Change password">
        <Field
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          value={values.currentPassword}
          error={errors.currentPassword}
          onChange={(e) => set('currentPassword', e.target.value)}
        />
        <Field
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          value={values.newPassword}
          error={errors.newPassword}
          hint="At least 8 characters with a lowercase letter, an uppercase letter and a number."
          onChange={(e) => set('newPassword', e.target.value)}
        />
        <Field
          label="Confirm new password"
          name="confirmPassword"
          type="password"
          autoComplete="new-password"
          value={values.confirmPassword}
          error={errors.confirmPassword}
          onChange={(e) => set('confirmPassword', e.target.value)}
        />
        <div className="card-actions">
          <Button type="submit" loading={change.isPending}>
            Change Password
          </Button>
        </div>
      </form>
      {result && (
        <Alert kind={result.kind} onDismiss={() => setResult(null)}>
          {result.text}
        </Alert>
      )}
    </Card>
  );
}
