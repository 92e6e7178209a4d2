import { useState, type FormEvent } from 'react';
import { renameInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { validate } from '../lib/validation';
import { useSession, useSessionActions } from '../session';
import { trpc } from '../trpc';
import { Alert, Button, Card, Field } from './ui';

/** The name shown in the app (registration's rules). */
export function ProfileSettings() {
  const user = useSession().data!;
  const { setUser } = useSessionActions();
  const rename = trpc.auth.rename.useMutation();
  const [name, setName] = useState(user.name);
  const [error, setError] = useState<string | undefined>();
  const [result, setResult] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setResult(null);
    const v = validate(renameInput, { name });
    if (!v.ok) return setError(v.errors.name);
    try {
      const r = await rename.mutateAsync(v.data);
      setUser(r.user);
      setName(r.user.name);
      setResult({ kind: 'success', text: 'Name saved.' });
    } catch (err) {
      setResult({ kind: 'error', text: errorMessage(err, 'Failed to save your name') });
    }
  }

  return (
    <Card title="Profile" description={`Signed in as ${user.email}.`}>
      <form className="form inline-form" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Profile">
        <Field
          label="Full Name"
          name="name"
          autoComplete="name"
          value={name}
          error={error}
          onChange={(e) => {
            setName(e.target.value);
            setError(undefined);
          }}
        />
        <Button type="submit" loading={rename.isPending}>
          Save Name
        </Button>
      </form>
      {result && (
        <Alert kind={result.kind} onDismiss={() => setResult(null)}>
          {result.text}
        </Alert>
      )}
    </Card>
  );
}
