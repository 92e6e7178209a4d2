import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { RESET_REDIRECT_MS } from '@proxyhub/core';
import { Alert, Button, BigIcon, Field, LinkButton, Spinner } from '../components/ui';
import { AuthLayout } from '../components/public-site';
import { errorMessage } from '../lib/errors';
import { loadApi } from '../lib/form-deps';
import { useLazyForm } from '../lib/lazy-form';
import { resetLinkValid } from '../lib/public-calls';
import { usePageTitle } from '../lib/page-title';
import { translatedNotice } from '../lib/notice-text';

export function ResetPasswordPage() {
  const { t } = useTranslation(['auth', 'common']);
  usePageTitle(t('reset.title'));
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
    const timer = setTimeout(() => void navigate('/login', { replace: true }), RESET_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [done, navigate]);

  if (link === 'checking') {
    return (
      <AuthLayout>
        <div className="center-stack" aria-live="polite">
          <span className="big-icon big-icon-info" aria-hidden="true">
            <Spinner />
          </span>
          <h1 className="auth-title">{t('reset.checking')}</h1>
          <p className="auth-subtitle">{t('reset.checkingWait')}</p>
        </div>
      </AuthLayout>
    );
  }

  if (link === 'invalid') {
    return (
      <AuthLayout>
        <div className="center-stack">
          <BigIcon kind="error" icon="warning" />
          <h1 className="auth-title">{t('reset.invalidTitle')}</h1>
          <p className="auth-subtitle" role="alert">
            {t('reset.invalid')}
          </p>
          <LinkButton to="/forgot-password" block>
            {t('reset.requestNew')}
          </LinkButton>
          <LinkButton to="/login" variant="ghost" block>
            {t('backToLogin')}
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
          <h1 className="auth-title">{t('reset.done')}</h1>
          <p className="auth-subtitle">{done}</p>
          <p className="muted small">{t('reset.redirecting')}</p>
          <LinkButton to="/login" block>
            {t('signIn')}
          </LinkButton>
        </div>
      </AuthLayout>
    );
  }

  const onSubmit = form.submit(async ({ password }) => {
    try {
      setDone(translatedNotice((await (await loadApi()).auth.resetPassword.mutate({ token, password })).message));
    } catch (err) {
      form.setError(errorMessage(err, t('reset.failed'), t('reset.unexpected')));
    }
  }, t('reset.unexpected'));

  return (
    <AuthLayout>
      <h1 className="auth-title">{t('reset.title')}</h1>
      <p className="auth-subtitle">{t('reset.lead')}</p>
      {form.formError && <Alert kind="error">{form.formError}</Alert>}
      <form className="form" onSubmit={onSubmit} onFocus={form.preload} noValidate aria-label={t('reset.form')}>
        <Field {...form.field('password')} label={t('reset.newPassword')} type="password" autoComplete="new-password" hint={t('common:passwordHint')} />
        <Field {...form.field('confirmPassword')} label={t('reset.confirmPassword')} type="password" autoComplete="new-password" />
        <Button type="submit" block loading={form.submitting}>
          {t('reset.title')}
        </Button>
      </form>
      <p className="auth-switch">
        <Link to="/login" className="link">
          {t('backToLogin')}
        </Link>
      </p>
    </AuthLayout>
  );
}
