import { zodResolver } from '@hookform/resolvers/zod';
import { renameInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { FormField, useActionForm } from '../lib/form';
import { useSession, useSessionActions } from '../session';
import { trpc } from '../trpc';
import { Button, Card } from './ui';

const resolver = zodResolver(renameInput);

/** The name shown in the app (registration's rules). */
export function ProfileSettings() {
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
      return 'Name saved.';
    },
    (err) => errorMessage(err, 'Failed to save your name'),
  );

  return (
    <Card title="Profile" description={`Signed in as ${user.email}.`}>
      <form className="form inline-form" onSubmit={onSubmit} noValidate aria-label="Profile">
        <FormField form={form} name="name" label="Full Name" autoComplete="name" />
        <Button type="submit" loading={rename.isPending}>
          Save Name
        </Button>
      </form>
      {outcome}
    </Card>
  );
}
