import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { Alert, BigIcon, Button, Field, LinkButton, Spinner } from '../components/ui';
import { AuthLayout } from '../components/public-site';
import { errorMessage, translatedError } from '../lib/errors';
import { loadApi } from '../lib/form-deps';
import { useLazyForm } from '../lib/lazy-form';
import { ServerAnswer, verifyEmail } from '../lib/public-calls';
import { usePageTitle } from '../lib/page-title';
import { translatedNotice } from '../lib/notice-text';

type State =
  { status: 'loading' } | { status: 'success'; message: string } | { status: 'already-verified'; message: string } | { status: 'error'; message: string };

export function VerifyEmailPage() {
  const { t } = useTranslation('auth');
  usePageTitle(t('verify.title'));
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [state, setState] = useState<State>({ status: 'loading' });
  // A token is single use: React's development double effects must not spend it twice.
  const started = useRef<string | null>(null);

  useEffect(() => {
    if (started.current === token) return;
    started.current = token;
    // The page's one call, made as it opens: a plain fetch of the REST path, whose procedure checks
    // the token with the core schema (a missing one gets the spec's invalid-link message from it).
    verifyEmail(token).then(
      (r) => setState({ status: r.alreadyVerified ? 'already-verified' : 'success', message: translatedNotice(r.message) }),
      (err: unknown) =>
        setState({
          status: 'error',
          message: err instanceof ServerAnswer ? translatedError(err.message, err.code) || t('verify.failed') : t('verify.failedRetry'),
        }),
    );
  }, [token, t]);

  return (
    <AuthLayout>
      <div className="center-stack" data-state={state.status} aria-live="polite">
        {state.status === 'loading' ? (
          <>
            <span className="big-icon big-icon-info" aria-hidden="true">
              <Spinner />
            </span>
            <h1 className="auth-title">{t('verify.verifying')}</h1>
            <p className="auth-subtitle">{t('verify.wait')}</p>
          </>
        ) : state.status === 'error' ? (
          <>
            <BigIcon kind="error" icon="cross" />
            <h1 className="auth-title">{t('verify.failedTitle')}</h1>
            <p className="auth-subtitle" role="alert">
              {state.message}
            </p>
            <ResendVerification />
          </>
        ) : (
          <>
            <BigIcon kind="success" icon="check" />
            <h1 className="auth-title">{t(state.status === 'success' ? 'verify.verified' : 'verify.already')}</h1>
            <p className="auth-subtitle">{state.message}</p>
          </>
        )}
        {state.status !== 'loading' && (
          <div className="stack-actions">
            <LinkButton to="/login" block>
              {t('signIn')}
            </LinkButton>
            <LinkButton to="/" variant="ghost" block>
              {t('verify.goHome')}
            </LinkButton>
          </div>
        )}
      </div>
    </AuthLayout>
  );
}

/** A dead or used link: a new one is one address away (the server answers the same whether or not it has the account). */
function ResendVerification() {
  const { t } = useTranslation('auth');
  const form = useLazyForm((r) => r.resendVerification);
  const [sent, setSent] = useState<string | null>(null);
  const onSubmit = form.submit(async (input) => {
    try {
      setSent((await (await loadApi()).auth.resendVerification.mutate(input)).message);
    } catch (err) {
      form.setError(errorMessage(err, t('resendFailed'), t('verify.resendUnexpected')));
    }
  }, t('verify.resendUnexpected'));
  if (sent) return <Alert kind="success">{sent}</Alert>;
  return (
    <form className="form resend-form" onSubmit={onSubmit} onFocus={form.preload} noValidate aria-label={t('verify.resendForm')}>
      <p className="muted small">{t('verify.resendLead')}</p>
      {form.formError && <Alert kind="error">{form.formError}</Alert>}
      <Field {...form.field('email')} label={t('email')} type="email" autoComplete="email" inputMode="email" placeholder={t('emailPlaceholder')} />
      <Button type="submit" block loading={form.submitting}>
        {t('verify.resend')}
      </Button>
    </form>
  );
}
