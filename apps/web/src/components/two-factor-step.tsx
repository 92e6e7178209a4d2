/** The second step of a sign-in with two-factor sign-in on: a code from the app or a recovery code. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../lib/errors';
import { useLazyForm } from '../lib/lazy-form';
import { Alert, Button, Field } from './ui';
import { AuthLayout } from './public-site';

export function TwoFactorStep({ submit, onCancel, busy }: { submit: (code: string) => Promise<void>; onCancel: () => void; busy: boolean }) {
  const { t } = useTranslation('auth');
  const form = useLazyForm((r) => r.twoFactorLogin);
  const [error, setError] = useState<string | null>(null);
  const onSubmit = form.submit(async ({ code }) => {
    try {
      await submit(code);
    } catch (err) {
      setError(errorMessage(err, t('twoFactor.failed')));
    }
  }, t('twoFactor.failed'));
  // The code's message shows above the form, as the server's do.
  const { error: codeError, ...code } = form.field('code');
  const shown = error ?? codeError ?? form.formError;
  return (
    <AuthLayout>
      <h1 className="auth-title">{t('twoFactor.title')}</h1>
      <p className="auth-subtitle">{t('twoFactor.lead')}</p>
      {shown && <Alert kind="error">{shown}</Alert>}
      <form
        className="form"
        onSubmit={(e) => {
          setError(null);
          onSubmit(e);
        }}
        onFocus={form.preload}
        noValidate
        aria-label={t('twoFactor.form')}
      >
        <Field {...code} label={t('twoFactor.code')} autoComplete="one-time-code" inputMode="numeric" />
        <Button type="submit" block loading={busy}>
          {t('twoFactor.verify')}
        </Button>
      </form>
      <p className="auth-switch">
        <button type="button" className="link-button" onClick={onCancel}>
          {t('twoFactor.back')}
        </button>
      </p>
    </AuthLayout>
  );
}
