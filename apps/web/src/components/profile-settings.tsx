import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
import { renameInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { FormField, useActionForm } from '../lib/form';
import { useSession, useSessionActions } from '../session';
import { trpc } from '../trpc';
import { Button, Card } from './ui';

const resolver = zodResolver(renameInput);

/** The name shown in the app (registration's rules). */
export function ProfileSettings() {
  const { t } = useTranslation('settings');
  const user = useSession().data!;
  const { setUser } = useSessionActions();
  const rename = trpc.auth.rename.useMutation();
  const { form, onSubmit, outcome } = useActionForm(
    resolver,
    { name: user.name },
    async (input, f) => {
      const r = await rename.mutateAsync(input);
      setUser(r.user);
      f.reset({ name: r.user.name });
      return t('profile.saved');
    },
    (err) => errorMessage(err, t('profile.failed')),
  );

  return (
    <Card title={t('profile.title')} description={t('profile.description', { email: user.email })}>
      <form className="form inline-form" onSubmit={onSubmit} noValidate aria-label={t('profile.formLabel')}>
        <FormField form={form} name="name" label={t('profile.name')} autoComplete="name" />
        <Button type="submit" loading={rename.isPending}>
          {t('profile.submit')}
        </Button>
      </form>
      {outcome}
    </Card>
  );
}
