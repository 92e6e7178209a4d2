import { useEffect, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { TwoFactorStep } from '../components/two-factor-step';
import { Alert, AuthLayout, Button, Field, BigIcon } from '../components/ui';
import { errorMessage } from '../lib/errors';
import { loadApi, loadSchemas, preloadForm } from '../lib/form-deps';
import { signInOptions } from '../lib/public-calls';
import { isReturningVisitor } from '../lib/returning';
import { validate, type FieldErrors } from '../lib/validation';
import { setSessionUser } from '../session-store';

type Mode = 'signin' | 'register';
type Values = { email: string; password: string; name: string };
const EMPTY: Values = { email: '', password: '', name: '' };
const UNEXPECTED = 'An unexpected error occurred. Please try again.';

export function LoginPage() {
  const [params] = useSearchParams();
  // A referral link (/login?ref=CODE) opens the registration, and the registration carries the code.
  const referralCode = params.get('ref')?.trim() || undefined;
  const [mode, setMode] = useState<Mode>(referralCode ? 'register' : 'signin');
  const [values, setValues] = useState<Values>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors<keyof Values>>({});
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

  function change(field: keyof Values, value: string) {
    setValues((v) => ({ ...v, [field]: value }));
    if (errors[field]) setErrors((e) => ({ ...e, [field]: undefined }));
  }

  function switchMode(next: Mode) {
    setMode(next);
    setValues(EMPTY);
    setErrors({});
    setFormError(null);
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setFormError(null);
    // Validation waits for the schemas only (loaded by now if the form was focused); the client loads meanwhile.
    const api = loadApi();
    api.catch(() => undefined);
    let schemas;
    try {
      schemas = await loadSchemas();
    } catch {
      return setFormError(UNEXPECTED);
    }
    if (mode === 'signin') {
      const v = validate(schemas.loginInput, { email: values.email, password: values.password });
      if (!v.ok) return setErrors(v.errors);
      setBusy(true);
      try {
        const r = await (await api).auth.login.mutate(v.data);
        if (r.status === 'verification_required') {
          setCheckEmail({ email: v.data.email, message: r.message });
          return;
        }
        if (r.status === 'two_factor_required') {
          setCodeStep(true);
          return;
        }
        // PublicOnly sees the user and moves on to the dashboard (or the page that sent here).
        setSessionUser(r.user);
      } catch (err) {
        setFormError(errorMessage(err, 'Login failed', UNEXPECTED));
      } finally {
        setBusy(false);
      }
    } else {
      const v = validate(schemas.registerInput, { ...values, referralCode });
      if (!v.ok) {
        const { referralCode: badReferral, ...fieldErrors } = v.errors as FieldErrors<keyof Values | 'referralCode'>;
        if (badReferral) setFormError(badReferral);
        return setErrors(fieldErrors);
      }
      setBusy(true);
      try {
        const r = await (await api).auth.register.mutate(v.data);
        setCheckEmail({ email: v.data.email, message: r.message });
      } catch (err) {
        setFormError(errorMessage(err, 'Registration failed', UNEXPECTED));
      } finally {
        setBusy(false);
      }
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
      <h1 className="auth-title">{creating ? 'Create Account' : 'Sign In'}</h1>
      <p className="auth-subtitle">
        {creating ? 'Start generating residential proxies in minutes.' : returning ? 'Welcome back. Sign in to your account.' : 'Sign in to your account.'}
      </p>
      {deleted && !formError && <Alert kind="info">Your account was deleted.</Alert>}
      {creating && referralCode && (
        <Alert kind="info">
          <span data-testid="referral-notice">
            You were invited with referral code <strong>{referralCode.toUpperCase()}</strong>.
          </span>
        </Alert>
      )}
      {formError && (
        <Alert kind="error" onDismiss={() => setFormError(null)}>
          {formError}
        </Alert>
      )}
      <form className="form" onSubmit={(e) => void onSubmit(e)} onFocus={preloadForm} noValidate aria-label={creating ? 'Create account' : 'Sign in'}>
        {creating && (
          <Field
            label="Full Name"
            name="name"
            autoComplete="name"
            value={values.name}
            error={errors.name}
            onChange={(e) => change('name', e.target.value)}
            placeholder="Jane Doe"
          />
        )}
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          inputMode="email"
          value={values.email}
          error={errors.email}
          onChange={(e) => change('email', e.target.value)}
          placeholder="you@example.com"
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete={creating ? 'new-password' : 'current-password'}
          value={values.password}
          error={errors.password}
          onChange={(e) => change('password', e.target.value)}
          placeholder={creating ? 'At least 8 characters' : 'Your password'}
          hint={creating ? 'At least 8 characters with a lowercase letter, an uppercase letter and a number.' : undefined}
        />
        {!creating && (
          <div className="form-row-end">
            <Link to="/forgot-password" className="link">
              Forgot password?
            </Link>
          </div>
        )}
        <Button type="submit" block loading={busy}>
          {creating ? 'Create Account' : 'Sign In'}
        </Button>
      </form>
      {google && (
        <>
          <div className="divider">
            <span>or</span>
          </div>
          <GoogleButton />
        </>
      )}
      <p className="auth-switch">
        {creating ? 'Already have an account?' : "Don't have an account?"}{' '}
        <button type="button" className="link-button" onClick={() => switchMode(creating ? 'signin' : 'register')}>
          {creating ? 'Sign In' : 'Create Account'}
        </button>
      </p>
    </AuthLayout>
  );
}

function GoogleButton() {
  return (
    <Button variant="secondary" block className="google-btn" onClick={() => window.location.assign('/auth/google')}>
      <svg viewBox="0 0 24 24" aria-hidden="true" className="google-icon">
        <path fill="#4285F4" d="M22.6 12.2c0-.7-.1-1.4-.2-2.1H12v4h5.9a5 5 0 0 1-2.2 3.3v2.7h3.6c2.1-1.9 3.3-4.8 3.3-7.9z" />
        <path fill="#34A853" d="M12 23c3 0 5.5-1 7.3-2.7l-3.6-2.7c-1 .7-2.2 1-3.7 1-2.9 0-5.3-1.9-6.2-4.5H2.1v2.8A11 11 0 0 0 12 23z" />
        <path fill="#FBBC05" d="M5.8 14.1a6.6 6.6 0 0 1 0-4.2V7.1H2.1a11 11 0 0 0 0 9.8z" />
        <path fill="#EA4335" d="M12 5.4c1.6 0 3 .6 4.2 1.6l3.1-3.1A11 11 0 0 0 2.1 7.1l3.7 2.8C6.7 7.3 9.1 5.4 12 5.4z" />
      </svg>
      Continue with Google
    </Button>
  );
}

function CheckYourEmail({ email, message, onBack }: { email: string; message: string; onBack: () => void }) {
  const [sending, setSending] = useState(false);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  async function onResend() {
    setNotice(null);
    setSending(true);
    try {
      const r = await (await loadApi()).auth.resendVerification.mutate({ email });
      setNotice({ kind: 'success', text: r.message });
    } catch (err) {
      setNotice({ kind: 'error', text: errorMessage(err, 'Failed to resend verification email') });
    } finally {
      setSending(false);
    }
  }

  return (
    <AuthLayout>
      <div className="center-stack">
        <BigIcon kind="info" icon="mail" />
        <h1 className="auth-title">Check Your Email</h1>
        <p className="auth-subtitle">
          We sent a verification link to <strong>{email}</strong>. Click the link to activate your account.
        </p>
        <Alert kind="info">{message}</Alert>
        {notice && <Alert kind={notice.kind}>{notice.text}</Alert>}
        <p className="muted small">
          Didn&apos;t get the email?{' '}
          <button type="button" className="link-button" onClick={() => void onResend()} disabled={sending}>
            {sending ? 'Sending...' : 'Resend verification email'}
          </button>
        </p>
        <Button variant="secondary" block onClick={onBack}>
          Back to login
        </Button>
      </div>
    </AuthLayout>
  );
}
