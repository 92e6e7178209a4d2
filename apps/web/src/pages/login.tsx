import { useEffect, useState, type FormEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { TwoFactorStep } from '../components/two-factor-step';
import type { LoginInput, RegisterInput } from '@proxyhub/core';
import { Alert, Button, Field } from '../components/ui';
import { AuthLayout, AuthNotice } from '../components/public-site';
import { errorMessage } from '../lib/errors';
import { loadApi } from '../lib/form-deps';
import { useLazyForm } from '../lib/lazy-form';
import { signInOptions } from '../lib/public-calls';
import { isReturningVisitor } from '../lib/returning';
import { setSessionUser } from '../session-store';
import { usePageTitle } from '../lib/page-title';
import { translatedNotice } from '../lib/notice-text';

type Mode = 'signin' | 'register';

export function LoginPage() {
  const { t } = useTranslation('auth');
  const [params] = useSearchParams();
  // A referral link (/login?ref=CODE) opens the registration, and the registration carries the code.
  const referralCode = params.get('ref')?.trim() || undefined;
  // /login?mode=register (Get Started, Create Account links) and referral links open the registration.
  const [mode, setMode] = useState<Mode>(referralCode || params.get('mode') === 'register' ? 'register' : 'signin');
  usePageTitle(t(mode === 'register' ? 'createAccount' : 'signIn'));
  const [formError, setFormError] = useState<string | null>(params.get('error'));
  const [checkEmail, setCheckEmail] = useState<{ email: string; message: string } | null>(null);
  // A sign-in, registration or code check in flight.
  const [busy, setBusy] = useState(false);
  // Two-factor sign-in on: the password (or Google) was right, the code is next (?twoFactor=1 after Google).
  const [codeStep, setCodeStep] = useState(params.get('twoFactor') === '1');
  // The Google button only when the server has Google sign-in configured.
  const [google, setGoogle] = useState(false);
  useEffect(() => {
    let live = true;
    signInOptions().then(
      (o) => {
        if (live) setGoogle(o.google);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  const [returning] = useState(isReturningVisitor);
  const deleted = params.get('deleted') === '1';

  function switchMode(next: Mode) {
    setMode(next);
    setFormError(null);
  }

  async function submit(input: LoginInput | RegisterInput) {
    setBusy(true);
    try {
      const api = await loadApi();
      if ('name' in input) {
        setCheckEmail({ email: input.email, message: translatedNotice((await api.auth.register.mutate({ ...input, referralCode })).message) });
        return;
      }
      const r = await api.auth.login.mutate(input);
      if (r.status === 'verification_required') setCheckEmail({ email: input.email, message: translatedNotice(r.message) });
      else if (r.status === 'two_factor_required') setCodeStep(true);
      // PublicOnly sees the user and moves on to the dashboard (or the page that sent here).
      else setSessionUser(r.user);
    } catch (err) {
      setFormError(errorMessage(err, t('name' in input ? 'login.registrationFailed' : 'login.loginFailed'), t('login.unexpected')));
    } finally {
      setBusy(false);
    }
  }

  if (codeStep) {
    return (
      <TwoFactorStep
        busy={busy}
        submit={async (code) => {
          setBusy(true);
          try {
            setSessionUser((await (await loadApi()).twoFactor.login.mutate({ code })).user);
          } finally {
            setBusy(false);
          }
        }}
        onCancel={() => {
          setCodeStep(false);
          switchMode('signin');
        }}
      />
    );
  }

  if (checkEmail) {
    return (
      <CheckYourEmail
        email={checkEmail.email}
        message={checkEmail.message}
        onBack={() => {
          setCheckEmail(null);
          switchMode('signin');
        }}
      />
    );
  }

  const creating = mode === 'register';
  return (
    <AuthLayout>
      <h1 className="auth-title">{t(creating ? 'createAccount' : 'signIn')}</h1>
      <p className="auth-subtitle">{t(creating ? 'login.startGenerating' : returning ? 'login.welcomeBack' : 'login.signInToAccount')}</p>
      {deleted && !formError && <Alert kind="info">{t('login.deleted')}</Alert>}
      {creating && referralCode && (
        <Alert kind="info">
          <span data-testid="referral-notice">
            <Trans t={t} i18nKey="login.referral" values={{ code: referralCode.toUpperCase() }} components={{ b: <strong /> }} />
          </span>
        </Alert>
      )}
      {formError && (
        <Alert kind="error" onDismiss={() => setFormError(null)}>
          {formError}
        </Alert>
      )}
      <CredentialsForm key={mode} creating={creating} busy={busy} onStart={() => setFormError(null)} submit={submit} />
      {google && (
        <>
          <div className="divider">
            <span>{t('login.or')}</span>
          </div>
          <GoogleButton referralCode={referralCode} />
        </>
      )}
      <p className="auth-switch">
        {t(creating ? 'login.haveAccount' : 'login.noAccount')}{' '}
        <button type="button" className="link-button" onClick={() => switchMode(creating ? 'signin' : 'register')}>
          {t(creating ? 'signIn' : 'createAccount')}
        </button>
      </p>
    </AuthLayout>
  );
}

/** The sign-in or registration form (one each time the mode switches, empty). */
function CredentialsForm({
  creating,
  busy,
  onStart,
  submit,
}: {
  creating: boolean;
  busy: boolean;
  onStart: () => void;
  submit: (input: LoginInput | RegisterInput) => Promise<void>;
}) {
  const { t } = useTranslation(['auth', 'common']);
  const form = useLazyForm((r) => r.credentials(creating));
  const send = form.submit(submit, t('login.unexpected'));
  const onSubmit = (e: FormEvent) => {
    onStart();
    send(e);
  };
  return (
    <form className="form" onSubmit={onSubmit} onFocus={form.preload} noValidate aria-label={t(creating ? 'login.createForm' : 'login.signInForm')}>
      {creating && <Field {...form.field('name')} label={t('login.fullName')} autoComplete="name" placeholder={t('login.namePlaceholder')} />}
      <Field {...form.field('email')} label={t('email')} type="email" autoComplete="email" inputMode="email" placeholder={t('emailPlaceholder')} />
      <Field
        {...form.field('password')}
        label={t('login.password')}
        type="password"
        autoComplete={creating ? 'new-password' : 'current-password'}
        placeholder={t(creating ? 'login.newPasswordPlaceholder' : 'login.passwordPlaceholder')}
        hint={creating ? t('common:passwordHint') : undefined}
      />
      {!creating && (
        <div className="form-row-end">
          <Link to="/forgot-password" className="link">
            {t('login.forgot')}
          </Link>
        </div>
      )}
      {/* Disabled from the click on (the schema may still be loading): a second click is not a second account mail. */}
      <Button type="submit" block loading={busy || form.submitting}>
        {t(creating ? 'createAccount' : 'signIn')}
      </Button>
    </form>
  );
}

/** From a referral link, the code rides along so a new Google account is recorded as referred. */
function GoogleButton({ referralCode }: { referralCode?: string }) {
  const { t } = useTranslation('auth');
  const href = referralCode ? `/auth/google?ref=${encodeURIComponent(referralCode)}` : '/auth/google';
  return (
    <Button variant="secondary" block className="google-btn" onClick={() => window.location.assign(href)}>
      <svg viewBox="0 0 24 24" aria-hidden="true" className="google-icon">
        <path fill="#4285F4" d="M22.6 12.2c0-.7-.1-1.4-.2-2.1H12v4h5.9a5 5 0 0 1-2.2 3.3v2.7h3.6c2.1-1.9 3.3-4.8 3.3-7.9z" />
        <path fill="#34A853" d="M12 23c3 0 5.5-1 7.3-2.7l-3.6-2.7c-1 .7-2.2 1-3.7 1-2.9 0-5.3-1.9-6.2-4.5H2.1v2.8A11 11 0 0 0 12 23z" />
        <path fill="#FBBC05" d="M5.8 14.1a6.6 6.6 0 0 1 0-4.2V7.1H2.1a11 11 0 0 0 0 9.8z" />
        <path fill="#EA4335" d="M12 5.4c1.6 0 3 .6 4.2 1.6l3.1-3.1A11 11 0 0 0 2.1 7.1l3.7 2.8C6.7 7.3 9.1 5.4 12 5.4z" />
      </svg>
      {t('login.google')}
    </Button>
  );
}

function CheckYourEmail({ email, message, onBack }: { email: string; message: string; onBack: () => void }) {
  const { t } = useTranslation('auth');
  const [sending, setSending] = useState(false);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  async function onResend() {
    setNotice(null);
    setSending(true);
    try {
      const r = await (await loadApi()).auth.resendVerification.mutate({ email });
      setNotice({ kind: 'success', text: translatedNotice(r.message) });
    } catch (err) {
      setNotice({ kind: 'error', text: errorMessage(err, t('resendFailed')) });
    } finally {
      setSending(false);
    }
  }

  return (
    <AuthNotice
      kind="info"
      icon="mail"
      title={t('checkEmail')}
      subtitle={<Trans t={t} i18nKey="login.sentLink" values={{ email }} components={{ b: <strong /> }} />}
    >
      <Alert kind="info">{message}</Alert>
      {notice && <Alert kind={notice.kind}>{notice.text}</Alert>}
      <p className="muted small">
        {t('login.didntGet')}{' '}
        <button type="button" className="link-button" onClick={() => void onResend()} disabled={sending}>
          {t(sending ? 'login.sending' : 'login.resend')}
        </button>
      </p>
      <Button variant="secondary" block onClick={onBack}>
        {t('backToLogin')}
      </Button>
    </AuthNotice>
  );
}
