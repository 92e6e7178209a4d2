/** Settings card: two-factor sign-in for the signed-in user (on with setup, off with password and code). */
import { useState, type FormEvent } from 'react';
import { twoFactorDisableInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { validate } from '../lib/validation';
import { trpc } from '../trpc';
import { TwoFactorSetup } from './two-factor-setup';
import { Alert, Button, Card, Field } from './ui';

export function TwoFactorSettings() {
  const status = trpc.twoFactor.status.useQuery(undefined, { staleTime: 0 });
  const setup = trpc.twoFactor.setup.useMutation();
  const enable = trpc.twoFactor.enable.useMutation();
  const utils = trpc.useUtils();
  const on = status.data?.enabled ?? false;
  return (
    <Card title="Two-factor sign-in" description="A code from an authenticator app at every sign-in, besides your password.">
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

function DisableTwoFactor({ onDone }: { onDone: () => void }) {
  const disable = trpc.twoFactor.disable.useMutation();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const v = validate(twoFactorDisableInput, { password, code });
    if (!v.ok) return setError(Object.values(v.errors)[0] ?? 'Invalid input');
    try {
      await disable.mutateAsync(v.data);
      onDone();
    } catch (err) {
      setError(errorMessage(err, 'Turning it off failed'));
    }
  }
  return (
    <form className="form" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Turn off two-factor sign-in">
      <p data-testid="two-factor-on">
        <span className="badge badge-green">On</span> Sign-ins ask for a code from your app.
      </p>
      {error && <Alert kind="error">{error}</Alert>}
      <Field label="Current password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
      <Field label="Code or recovery code" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} />
      <Button type="submit" variant="danger" loading={disable.isPending}>
        Turn off
      </Button>
    </form>
  );
}
