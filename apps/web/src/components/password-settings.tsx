import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
import { changePasswordForm } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { FormField, NewPasswordFields, useActionForm } from '../lib/form';
import { useSession } from '../session';
import { trpc } from '../trpc';
import { Button, Card } from './ui';
import { translatedNotice } from '../lib/notice-text';

const resolver = zodResolver(changePasswordForm);

/** A new password proven by the current one; the server signs out every other session. */
export function PasswordSettings() {
  const { t } = useTranslation('settings');
  const user = useSession().data!;
  const change = trpc.auth.changePassword.useMutation();
  const { form, onSubmit, outcome } = useActionForm(
    resolver,
    { currentPassword: '', newPassword: '', confirmPassword: '' },
    async ({ currentPassword, newPassword }, f) => {
      const r = await change.mutateAsync({ currentPassword, newPassword });
      f.reset();
      return translatedNotice(r.message);
    },
    (err) => errorMessage(err, t('password.failed')),
  );

  if (user.authType === 'google') {
    return (
      <Card title={t('password.title')} description={t('password.googleDescription')}>
        <p className="muted small">{t('password.googleHint')}</p>
      </Card>
    );
  }

  return (
    <Card title={t('password.title')} description={t('password.description')}>
      <form className="form" onSubmit={onSubmit} noValidate aria-label={t('password.formLabel')}>
        <FormField form={form} name="currentPassword" label={t('password.current')} type="password" autoComplete="current-password" />
        <NewPasswordFields form={form} names={['newPassword', 'confirmPassword']} labels={[t('password.new'), t('password.confirm')]} />
        <div className="card-actions">
          <Button type="submit" loading={change.isPending}>
            {t('password.submit')}
          </Button>
        </div>
      </form>
      {outcome}
    </Card>
  );
}
