/** Settings card: two-factor sign-in for the signed-in user (on with setup, off with password and code). */
import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
import { twoFactorDisableInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { firstError, FormField, setFormError, submitWith, useSchemaForm } from '../lib/form';
import { trpc } from '../trpc';
import { TwoFactorSetup } from './two-factor-setup';
import { Alert, Button, Card } from './ui';

export function TwoFactorSettings() {
  const { t } = useTranslation('settings');
  const status = trpc.twoFactor.status.useQuery(undefined, { staleTime: 0 });
  const setup = trpc.twoFactor.setup.useMutation();
  const enable = trpc.twoFactor.enable.useMutation();
  const utils = trpc.useUtils();
  const on = status.data?.enabled ?? false;
  return (
    <Card title={t('twoFactor.title')} description={t('twoFactor.description')}>
      {status.isSuccess && !on && (
        <TwoFactorSetup
          setup={() => setup.mutateAsync()}
          enable={(code) => enable.mutateAsync({ code })}
          onDone={() => void utils.twoFactor.status.invalidate()}
        />
      )}
      {on && <DisableTwoFactor onDone={() => void utils.twoFactor.status.invalidate()} />}
    </Card>
  );
}

const disableResolver = zodResolver(twoFactorDisableInput);

function DisableTwoFactor({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation('settings');
  const disable = trpc.twoFactor.disable.useMutation();
  const form = useSchemaForm(disableResolver, { password: '', code: '' });
  const onSubmit = submitWith(
    form,
    async (input) => {
      try {
        await disable.mutateAsync(input);
        onDone();
      } catch (err) {
        setFormError(form, errorMessage(err, t('twoFactor.turnOffFailed')));
      }
    },
    t('twoFactor.turnOffFailed'),
  );
  const error = firstError(form);
  return (
    <form className="form" onSubmit={onSubmit} noValidate aria-label={t('twoFactor.offLabel')}>
      <p data-testid="two-factor-on">
        <span className="badge badge-green">{t('twoFactor.on')}</span> {t('twoFactor.onText')}
      </p>
      {error && <Alert kind="error">{error}</Alert>}
      <FormField form={form} name="password" showError={false} label={t('twoFactor.currentPassword')} type="password" autoComplete="current-password" />
      <FormField form={form} name="code" showError={false} label={t('twoFactor.code')} autoComplete="one-time-code" />
      <Button type="submit" variant="danger" loading={disable.isPending}>
        {t('twoFactor.turnOff')}
      </Button>
    </form>
  );
}
