import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('settings');
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
      if (byEmail ? !input.email : !input.password) return setFormError(form, t(byEmail ? 'deleteAccount.emailRequired' : 'deleteAccount.passwordRequired'));
      try {
        await remove.mutateAsync(input);
      } catch (err) {
        setFormError(form, errorMessage(err, t('deleteAccount.failed')));
        return;
      }
      forgetReturningVisitor();
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
      setUser(null);
      void navigate('/login?deleted=1', { replace: true });
    },
    t('deleteAccount.failed'),
  );
  const error = firstError(form);

  return (
    <Card title={t('deleteAccount.title')} description={t('deleteAccount.description')}>
      {confirming ? (
        <form className="confirm-box form" onSubmit={onSubmit} noValidate aria-label={t('deleteAccount.formLabel')}>
          <p>
            <strong>{t('deleteAccount.question')}</strong> {t(byEmail ? 'deleteAccount.byEmail' : 'deleteAccount.byPassword')}
          </p>
          <FormField
            form={form}
            name={byEmail ? 'email' : 'password'}
            showError={false}
            label={t(byEmail ? 'deleteAccount.emailLabel' : 'deleteAccount.passwordLabel')}
            type={byEmail ? 'email' : 'password'}
            autoComplete={byEmail ? 'off' : 'current-password'}
          />
          {error && <Alert kind="error">{error}</Alert>}
          <div className="card-actions">
            <Button type="submit" variant="danger" loading={remove.isPending}>
              {t('deleteAccount.yes')}
            </Button>
            <Button
              variant="secondary"
              disabled={remove.isPending}
              onClick={() => {
                setConfirming(false);
                form.reset();
              }}
            >
              {t('words.cancel')}
            </Button>
          </div>
        </form>
      ) : (
        <div className="card-actions">
          <Button variant="danger" onClick={() => setConfirming(true)}>
            {t('deleteAccount.button')}
          </Button>
        </div>
      )}
    </Card>
  );
}
