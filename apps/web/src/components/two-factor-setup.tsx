/**
 * Turning two-factor sign-in on: a QR code and the secret for an authenticator app, a code to
 * confirm, then the recovery codes, shown once. Used by Settings (users and admins) and by an admin
 * sign-in that must set it up first.
 */
import { useState } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
import { twoFactorEnableInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { firstError, FormField, submitWith, useSchemaForm } from '../lib/form';
import { Alert, Button, CopyButton } from './ui';

const resolver = zodResolver(twoFactorEnableInput);

export interface TwoFactorSetupProps {
  setup: () => Promise<{ secret: string; qrCodeDataUrl: string }>;
  enable: (code: string) => Promise<{ recoveryCodes: string[] }>;
  onDone: () => void;
}

export function TwoFactorSetup({ setup, enable, onDone }: TwoFactorSetupProps) {
  const { t } = useTranslation('settings');
  const [secret, setSecret] = useState<{ secret: string; qrCodeDataUrl: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const form = useSchemaForm(resolver, { code: '' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (f: () => Promise<void>, what: string) => {
    setError(null);
    setBusy(true);
    try {
      await f();
    } catch (err) {
      setError(errorMessage(err, what));
    } finally {
      setBusy(false);
    }
  };
  const onEnable = submitWith(
    form,
    ({ code }) => run(async () => setCodes((await enable(code)).recoveryCodes), t('twoFactor.turnOnFailed')),
    t('twoFactor.turnOnFailed'),
  );
  // The code's message shows above the form, as the server's do.
  const shown = error ?? firstError(form);
  if (codes) {
    return (
      <div data-testid="recovery-codes">
        <Alert kind="success">{t('twoFactor.enabled')}</Alert>
        <pre className="recovery-codes">{codes.join('\n')}</pre>
        <div className="account-actions">
          <CopyButton text={codes.join('\n')} variant="secondary" ariaLabel={t('twoFactor.copyCodes')} />
          <Button onClick={onDone}>{t('twoFactor.done')}</Button>
        </div>
      </div>
    );
  }
  return (
    <div>
      {shown && <Alert kind="error">{shown}</Alert>}
      {!secret ? (
        <Button loading={busy} onClick={() => void run(async () => setSecret(await setup()), t('twoFactor.setupFailed'))}>
          {t('twoFactor.setUp')}
        </Button>
      ) : (
        <form
          className="form"
          onSubmit={(e) => {
            setError(null);
            onEnable(e);
          }}
          noValidate
          aria-label={t('twoFactor.confirmLabel')}
        >
          <p>{t('twoFactor.scan')}</p>
          <img src={secret.qrCodeDataUrl} alt={t('twoFactor.qrAlt')} width={200} height={200} />
          <p className="mono small" data-testid="totp-secret">
            {secret.secret}
          </p>
          <FormField form={form} name="code" showError={false} label={t('twoFactor.appCode')} inputMode="numeric" autoComplete="one-time-code" />
          <Button type="submit" loading={busy}>
            {t('twoFactor.turnOn')}
          </Button>
        </form>
      )}
    </div>
  );
}
