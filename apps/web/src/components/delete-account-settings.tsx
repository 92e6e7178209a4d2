import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { deleteAccountInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { forgetReturningVisitor } from '../lib/returning';
import { validate } from '../lib/validation';
import { useSession, useSessionActions } from '../session';
import { trpc } from '../trpc';
import { Alert, Button, Card, Field } from './ui';

/**
 * Deleting the account, after a confirmation that asks for the password (or, for an account that
 * signs in with Google only, the email address typed). Afterwards the app returns to the login page.
 */
export function DeleteAccountSettings() {
  const user = useSession().data!;
  const { setUser } = useSessionActions();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const remove = trpc.auth.deleteAccount.useMutation();
  const [confirming, setConfirming] = useState(false);
  const [proof, setProof] = useState('');
  const [error, setError] = useState<string | undefined>();
  const byEmail = user.authType === 'google';

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    const v = validate(deleteAccountInput, byEmail ? { email: proof } : { password: proof });
    if (!v.ok) return setError(Object.values(v.errors)[0]);
    // The schema lets either proof be absent (the server knows which one the account needs).
    if (byEmail ? !v.data.email : !v.data.password) return setError(byEmail ? 'Type the email address of your account to confirm' : 'Password is required');
    try {
      await remove.mutateAsync(v.data);
    } catch (err) {
      setError(errorMessage(err, 'Failed to delete the account'));
      return;
    }
    forgetReturningVisitor();
    qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    setUser(null);
    void navigate('/login?deleted=1', { replace: true });
  }

  return (
    <Card
      title="Delete Account"
      description="Your sign-in, API key and proxy credentials stop working at once and cannot be restored. Remaining Data is not refunded."
    >
      {confirming ? (
        <form className="confirm-box form" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Confirm deleting the account">
          <p>
            <strong>Delete your account for good?</strong> {byEmail ? 'Type your email address to confirm.' : 'Enter your password to confirm.'}
          </p>
          <Field
            label={byEmail ? 'Email address' : 'Password'}
            name={byEmail ? 'confirmEmail' : 'confirmPassword'}
            type={byEmail ? 'email' : 'password'}
            autoComplete={byEmail ? 'off' : 'current-password'}
            value={proof}
            onChange={(e) => {
              setProof(e.target.value);
              setError(undefined);
            }}
          />
          {error && <Alert kind="error">{error}</Alert>}
          <div className="card-actions">
            <Button type="submit" variant="danger" loading={remove.isPending}>
              Yes, delete my account
            </Button>
            <Button
              variant="secondary"
              disabled={remove.isPending}
              onClick={() => {
                setConfirming(false);
                setProof('');
                setError(undefined);
              }}
            >
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <div className="card-actions">
          <Button variant="danger" onClick={() => setConfirming(true)}>
            Delete Account
          </Button>
        </div>
      )}
    </Card>
  );
}
