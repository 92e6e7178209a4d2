import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { AuthLayout, Spinner, BigIcon } from '../components/ui';
import { ServerAnswer, verifyEmail } from '../lib/public-calls';

type State =
  { status: 'loading' } | { status: 'success'; message: string } | { status: 'already-verified'; message: string } | { status: 'error'; message: string };

export function VerifyEmailPage() {
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
      (r) => setState(r.alreadyVerified ? { status: 'already-verified', message: r.message } : { status: 'success', message: r.message }),
      (err: unknown) =>
        setState({
          status: 'error',
          message: err instanceof ServerAnswer ? err.message || 'Email verification failed' : 'Email verification failed. Please try again.',
        }),
    );
  }, [token]);

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
