import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { Alert, Button, Field, LinkButton } from '../components/ui';
import { AuthLayout, AuthNotice } from '../components/public-site';
import { errorMessage } from '../lib/errors';
import { loadApi } from '../lib/form-deps';
import { useLazyForm } from '../lib/lazy-form';
import { usePageTitle } from '../lib/page-title';

export function ForgotPasswordPage() {
  const { t } = useTranslation('auth');
  usePageTitle(t('forgot.title'));
  const form = useLazyForm((r) => r.forgotPassword);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const onSubmit = form.submit(async (input) => {
    try {
      await (await loadApi()).auth.forgotPassword.mutate(input);
      setSentTo(input.email);
    } catch (err) {
      form.setError(errorMessage(err, t('forgot.failed'), t('forgot.unexpected')));
    }
  }, t('forgot.unexpected'));

  if (sentTo) {
    return (
      <AuthNotice
        kind="success"
        icon="mail"
        title={t('checkEmail')}
        subtitle={<Trans t={t} i18nKey="forgot.sent" values={{ email: sentTo }} components={{ b: <strong /> }} />}
      >
        <Alert kind="info">{t('forgot.expires')}</Alert>
        <LinkButton to="/login" variant="secondary" block>
          {t('backToLogin')}
        </LinkButton>
      </AuthNotice>
    );
  }

  return (
    <AuthLayout>
      <h1 className="auth-title">{t('forgot.title')}</h1>
      <p className="auth-subtitle">{t('forgot.lead')}</p>
      {form.formError && <Alert kind="error">{form.formError}</Alert>}
      <form className="form" onSubmit={onSubmit} onFocus={form.preload} noValidate aria-label={t('forgot.form')}>
        <Field {...form.field('email')} label={t('email')} type="email" autoComplete="email" inputMode="email" placeholder={t('emailPlaceholder')} />
        <Button type="submit" block loading={form.submitting}>
          {t('forgot.send')}
        </Button>
      </form>
      <p className="auth-switch">
        {t('forgot.remembered')}{' '}
        <Link to="/login" className="link">
          {t('backToLogin')}
        </Link>
      </p>
    </AuthLayout>
  );
}
