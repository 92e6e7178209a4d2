import { zodResolver } from '@hookform/resolvers/zod';
import { changePasswordForm } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { FormField, NewPasswordFields, useActionForm } from '../lib/form';
import { useSession } from '../session';
import { trpc } from '../trpc';
import { Button, Card } from './ui';

const resolver = zodResolver(changePasswordForm);

/** A new password proven by the current one; the server signs out every other session. */
export function PasswordSettings() {
  const user = useSession().data!;
  const change = trpc.auth.changePassword.useMutation();
  const { form, onSubmit, outcome } = useActionForm(
    resolver,
    { currentPassword: '', newPassword: '', confirmPassword: '' },
    async ({ currentPassword, newPassword }, f) => {
      const r = await change.mutateAsync({ currentPassword, newPassword });
      f.reset();
      return r.message;
    },
    (err) => errorMessage(err, 'Failed to change the password'),
  );

  if (user.authType === 'google') {
    return (
      <Card title="Password" description="You sign in with Google, so your account has no password.">
        <p className="muted small">To set one, use &quot;Forgot password?&quot; on the sign-in page: we email you a link.</p>
      </Card>
    );
  }

  return (
    <Card title="Password" description="Changing it signs you out everywhere else; this browser stays signed in.">
      <form className="form" onSubmit={onSubmit} noValidate aria-label="Change password">
        <FormField form={form} name="currentPassword" label="Current password" type="password" autoComplete="current-password" />
        <NewPasswordFields form={form} names={['newPassword', 'confirmPassword']} labels={['New password', 'Confirm new password']} />
        <div className="card-actions">
          <Button type="submit" loading={change.isPending}>
            Change Password
          </Button>
        </div>
      </form>
      {outcome}
    </Card>
  );
}
