import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { INVALID_VERIFY_LINK, verifyEmailInput } from '@proxyhub/core';
import { AuthLayout, Spinner, BigIcon } from '../components/ui';
import { errorMessage } from '../lib/errors';
import { validate } from '../lib/validation';
import { trpc } from '../trpc';

type State =
  { status: 'loading' } | { status: 'success'; message: string } | { status: 'already-verified'; message: string } | { status: 'error'; message: string };

export function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const verify = trpc.auth.verifyEmail.useMutation();
  const [state, setState] = useState<State>({ status: 'loading' });
  // A token is single use: React's development double effects must not spend it twice.
  const started = useRef<string | null>(null);

  useEffect(() => {
    if (started.current === token) return;
    started.current = token;
    const v = validate(verifyEmailInput, { token });
    if (!v.ok) {
      setState({ status: 'error', message: v.errors.token ?? INVALID_VERIFY_LINK });
      return;
    }
    verify.mutateAsync(v.data).then(
      (r) => setState(r.alreadyVerified ? { status: 'already-verified', message: r.message } : { status: 'success', message: r.message }),
      (err: unknown) => setState({ status: 'error', message: errorMessage(err, 'Email verification failed', 'Email verification failed. Please try again.') }),
    );
  }, [token, verify]);

  return (
    <AuthLayout>
      <div className="center-stack" data-state={state.status} aria-live="polite">
        {state.status === 'loading' ? (
          <>
            <span className="big-icon big-icon-info" aria-hidden="true">
              <Spinner />
            </span>
            <h1 className="auth-title">Verifying Your Email</h1>
            <p className="auth-subtitle">Please wait while we verify your email address...</p>
          </>
        ) : state.status === 'error' ? (
          <>
            <BigIcon kind="error" icon="cross" />
            <h1 className="auth-title">Verification Failed</h1>
            <p className="auth-subtitle" role="alert">
              {state.message}
            </p>
          </>
        ) : (
          <>
            <BigIcon kind="success" icon="check" />
            <h1 className="auth-title">{state.status === 'success' ? 'Email Verified!' : 'Already Verified'}</h1>
            <p className="auth-subtitle">{state.message}</p>
          </>
        )}
        {state.status !== 'loading' && (
          <div className="stack-actions">
            <Link to="/login" className="btn btn-primary btn-block">
              Sign In
            </Link>
            <Link to="/" className="btn btn-ghost btn-block">
              Go Home
            </Link>
          </div>
        )}
      </div>
    </AuthLayout>
  );
}
