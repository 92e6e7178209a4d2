import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { zodResolver } from '@hookform/resolvers/zod';
import { adminLoginInput } from '@proxyhub/core';
import { errorMessage, isUnauthorized } from '../../lib/errors';
import { FormField, formError, setFormError, submitWith, useSchemaForm } from '../../lib/form';
import { trpc } from '../../trpc';
import { TwoFactorSetup } from '../two-factor-setup';
import { TwoFactorStep } from '../two-factor-step';
import { Alert, Button } from '../ui';
import { AuthLayout } from '../public-site';

const resolver = zodResolver(adminLoginInput);

export function AdminLogin({ onLoggedIn }: { onLoggedIn: () => void }) {
  const { t } = useTranslation('admin');
  const form = useSchemaForm(resolver, { username: '', password: '' });
  const login = trpc.admin.login.useMutation();
  const secondFactor = trpc.twoFactor.adminLogin.useMutation();
  const setup = trpc.twoFactor.adminSetup.useMutation();
  const enable = trpc.twoFactor.adminEnable.useMutation();
  // After a right password: the code step, or (ADMIN_REQUIRE_2FA) setting two-factor sign-in up.
  const [step, setStep] = useState<'password' | 'code' | 'setup'>('password');

  const onSubmit = submitWith(
    form,
    async (input) => {
      try {
        const r = await login.mutateAsync(input);
        if (r.success) return onLoggedIn();
        setStep('requiresTwoFactorSetup' in r ? 'setup' : 'code');
      } catch (err) {
        setFormError(form, isUnauthorized(err) ? errorMessage(err, t('login.invalidCredentials')) : errorMessage(err, t('login.failed'), t('login.failed')));
      }
    },
    t('login.failed'),
  );

  if (step === 'code') {
    return (
      <TwoFactorStep
        busy={secondFactor.isPending}
        submit={async (code) => {
          await secondFactor.mutateAsync({ code });
          onLoggedIn();
        }}
        onCancel={() => setStep('password')}
      />
    );
  }
  if (step === 'setup') {
    return (
      <AuthLayout>
        <span className="badge badge-dark">{t('panel.badge')}</span>
        <h1 className="auth-title">{t('login.setupTitle')}</h1>
        <p className="auth-subtitle">{t('login.setupSubtitle')}</p>
        <TwoFactorSetup setup={() => setup.mutateAsync()} enable={(code) => enable.mutateAsync({ code })} onDone={onLoggedIn} />
      </AuthLayout>
    );
  }

  const error = formError(form);
  return (
    <AuthLayout>
      <span className="badge badge-dark">{t('panel.badge')}</span>
      <h1 className="auth-title">{t('login.title')}</h1>
      <p className="auth-subtitle">{t('login.subtitle')}</p>
      {error && <Alert kind="error">{error}</Alert>}
      <form className="form" onSubmit={onSubmit} noValidate aria-label={t('login.formLabel')}>
        <FormField form={form} name="username" label={t('login.username')} autoComplete="username" />
        <FormField form={form} name="password" label={t('login.password')} type="password" autoComplete="current-password" />
        <Button type="submit" block loading={login.isPending}>
          {t('login.submit')}
        </Button>
      </form>
    </AuthLayout>
  );
}
