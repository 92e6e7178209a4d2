import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useNavigate } from 'react-router-dom';
import { deleteAccountInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { forgetReturningVisitor } from '../lib/returning';
import { firstError, FormField, setFormError, submitWith, useSchemaForm } from '../lib/form';
import { useSession, useSessionActions } from '../session';
import { trpc } from '../trpc';
import { Alert, Button, Card } from './ui';

const resolver = zodResolver(deleteAccountInput);

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
  const byEmail = user.authType === 'google';
  const form = useSchemaForm(resolver, byEmail ? { email: '' } : { password: '' });

  const onSubmit = submitWith(
    form,
    async (input) => {
      // The schema lets either proof be absent (the server knows which one the account needs).
      if (byEmail ? !input.email : !input.password)
        return setFormError(form, byEmail ? 'Type the email address of your account to confirm' : 'Password is required');
      try {
        await remove.mutateAsync(input);
      } catch (err) {
        setFormError(form, errorMessage(err, 'Failed to delete the account'));
        return;
      }
      forgetReturningVisitor();
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
      setUser(null);
      void navigate('/login?deleted=1', { replace: true });
    },
    'Failed to delete the account',
  );
  const error = firstError(form);

  return (
    <Card
      title="Delete Account"
      description="Your sign-in, API key and proxy credentials stop working at once and cannot be restored. Remaining Data is not refunded."
    >
      {confirming ? (
        <form className="confirm-box form" onSubmit={onSubmit} noValidate aria-label="Confirm deleting the account">
          <p>
            <strong>Delete your account for good?</strong> {byEmail ? 'Type your email address to confirm.' : 'Enter your password to confirm.'}
          </p>
          <FormField
            form={form}
            name={byEmail ? 'email' : 'password'}
            showError={false}
            label={byEmail ? 'Email address' : 'Password'}
            type={byEmail ? 'email' : 'password'}
            autoComplete={byEmail ? 'off' : 'current-password'}
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
                form.reset();
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
