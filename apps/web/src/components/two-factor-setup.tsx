/**
 * Turning two-factor sign-in on: a QR code and the secret for an authenticator app, a code to
 * confirm, then the recovery codes, shown once. Used by Settings (users and admins) and by an admin
 * sign-in that must set it up first.
 */
import { useState, type FormEvent } from 'react';
import { twoFactorEnableInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { validate } from '../lib/validation';
import { Alert, Button, CopyButton, Field } from './ui';

export interface TwoFactorSetupProps {
  setup: () => Promise<{ secret: string; qrCodeDataUrl: string }>;
  enable: (code: string) => Promise<{ recoveryCodes: string[] }>;
  onDone: () => void;
}

export function TwoFactorSetup({ setup, enable, onDone }: TwoFactorSetupProps) {
  const [secret, setSecret] = useState<{ secret: string; qrCodeDataUrl: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
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
  async function onEnable(e: FormEvent) {
    e.preventDefault();
    const v = validate(twoFactorEnableInput, { code });
    if (!v.ok) return setError(v.errors.code ?? 'Please enter a code');
    await run(async () => setCodes((await enable(v.data.code)).recoveryCodes), 'Turning it on failed');
  }
  if (codes) {
    return (
      <div data-testid="recovery-codes">
        <Alert kind="success">
          Two-factor sign-in is on. Keep these recovery codes somewhere safe: each signs you in once if you lose your phone. They are not shown again.
        </Alert>
        <pre className="recovery-codes">{codes.join('\n')}</pre>
        <div className="account-actions">
          <CopyButton text={codes.join('\n')} variant="secondary" ariaLabel="Copy recovery codes" />
          <Button onClick={onDone}>Done</Button>
        </div>
      </div>
    );
  }
  return (
    <div>
      {error && <Alert kind="error">{error}</Alert>}
      {!secret ? (
        <Button loading={busy} onClick={() => void run(async () => setSecret(await setup()), 'Setting up failed')}>
          Set up two-factor sign-in
        </Button>
      ) : (
        <form className="form" onSubmit={(e) => void onEnable(e)} noValidate aria-label="Confirm two-factor sign-in">
          <p>Scan this code with an authenticator app (or type the key in), then enter the 6-digit code it shows.</p>
          <img src={secret.qrCodeDataUrl} alt="QR code for your authenticator app" width={200} height={200} />
          <p className="mono small" data-testid="totp-secret">
            {secret.secret}
          </p>
          <Field label="Code from the app" inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} />
          <Button type="submit" loading={busy}>
            Turn on
          </Button>
        </form>
      )}
    </div>
  );
}
