/** The admins: add one, disable one (never the last active). */
import { useState } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import { createAdminInput } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { FormField, submitWith, useSchemaForm } from '../../lib/form';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable } from '../data-table';
import { Alert, Button, Card } from '../ui';
import { when } from './format';

type Admin = RouterOutputs['admin']['admins']['admins'][number];
const resolver = zodResolver(createAdminInput);

export function AdminAdmins() {
  const utils = trpc.useUtils();
  const admins = trpc.admin.admins.useQuery(undefined, { staleTime: 0 });
  const create = trpc.admin.createAdmin.useMutation();
  const disable = trpc.admin.disableAdmin.useMutation();
  const form = useSchemaForm(resolver, { username: '', password: '' });
  const [error, setError] = useState<string | null>(null);
  const onCreate = submitWith(
    form,
    async (input) => {
      setError(null);
      try {
        await create.mutateAsync(input);
        form.reset();
        await utils.admin.admins.invalidate();
      } catch (err) {
        setError(errorMessage(err, 'Adding the admin failed'));
      }
    },
    'Adding the admin failed',
  );
  async function onDisable(id: string, name: string) {
    if (!window.confirm(`Disable ${name}? Their sessions end at once.`)) return;
    setError(null);
    try {
      await disable.mutateAsync({ id });
      await utils.admin.admins.invalidate();
    } catch (err) {
      setError(errorMessage(err, 'Disabling failed'));
    }
  }
  return (
    <div className="stack">
      <Card title="Admins">
        {error && <Alert kind="error">{error}</Alert>}
        <DataTable<Admin>
          testId="admins-table"
          rows={admins.data?.admins}
          rowKey={(a) => a.id}
          empty="No admins."
          columns={[
            { head: 'Username', cell: (a) => a.username },
            { head: 'Since', cell: (a) => when(a.createdAt) },
            { head: 'State', cell: (a) => (a.disabledAt ? `Disabled ${when(a.disabledAt)}` : 'Active') },
            {
              head: '',
              cell: (a) =>
                !a.disabledAt && (
                  <Button variant="secondary" onClick={() => void onDisable(a.id, a.username)} aria-label={`Disable ${a.username}`}>
                    Disable
                  </Button>
                ),
            },
          ]}
        />
      </Card>
      <Card title="Add an admin" description="They sign in at /admin with this username and password.">
        <form onSubmit={onCreate} noValidate>
          <FormField form={form} name="username" label="New admin username" autoComplete="off" />
          <FormField form={form} name="password" label="New admin password" type="password" autoComplete="new-password" />
          <Button type="submit" loading={create.isPending}>
            Add admin
          </Button>
        </form>
      </Card>
    </div>
  );
}
