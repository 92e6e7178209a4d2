/** The admins: add one, disable one (never the last active). */
import { zodResolver } from '@hookform/resolvers/zod';
import { ADMIN_ROLES, createAdminInput, DEFAULT_ADMIN_ROLE, type AdminRole } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { FormField, submitWith, useSchemaForm } from '../../lib/form';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, type Column } from '../data-table';
import { Alert, Button, Card, SelectField } from '../ui';
import { when } from './format';
import { actionColumn, useRowAction } from './row-action';

type Admin = RouterOutputs['admin']['admins']['admins'][number];
const resolver = zodResolver(createAdminInput);
const ROLE_NAMES: Record<AdminRole, string> = { owner: 'Owner', finance: 'Finance', support: 'Support' };
const ROLE_LABELS: Record<AdminRole, string> = {
  owner: 'Owner (everything)',
  finance: 'Finance (payments, overview)',
  support: 'Support (users, codes)',
};
const roleOptions = (labels: Record<AdminRole, string>) =>
  ADMIN_ROLES.map((r) => (
    <option key={r} value={r}>
      {labels[r]}
    </option>
  ));

export function AdminAdmins() {
  const utils = trpc.useUtils();
  const admins = trpc.admin.admins.useQuery(undefined, { staleTime: 0 });
  const create = trpc.admin.createAdmin.useMutation();
  const disable = trpc.admin.disableAdmin.useMutation();
  const update = trpc.admin.updateAdmin.useMutation();
  const form = useSchemaForm(resolver, { username: '', password: '', role: DEFAULT_ADMIN_ROLE });
  const row = useRowAction();
  const onCreate = submitWith(
    form,
    async (input) => {
      row.setError(null);
      try {
        await create.mutateAsync(input);
        form.reset();
        await utils.admin.admins.invalidate();
      } catch (err) {
        row.setError(errorMessage(err, 'Adding the admin failed'));
      }
    },
    'Adding the admin failed',
  );
  const onDisable = (id: string, name: string) =>
    row.act(`Disable ${name}? Their sessions end at once.`, 'Disabling failed', async () => {
      await disable.mutateAsync({ id });
      await utils.admin.admins.invalidate();
    });
  const onRole = async (id: string, role: AdminRole) => {
    row.setError(null);
    try {
      await update.mutateAsync({ id, role });
    } catch (err) {
      row.setError(errorMessage(err, 'Changing the role failed'));
    }
    await utils.admin.admins.invalidate();
  };
  const columns: Column<Admin>[] = [
    { head: 'Username', cell: (a) => a.username },
    {
      head: 'Role',
      cell: (a) =>
        a.disabledAt ? (
          ROLE_NAMES[a.role]
        ) : (
          <select aria-label={`Role of ${a.username}`} value={a.role} onChange={(e) => void onRole(a.id, e.target.value as AdminRole)}>
            {roleOptions(ROLE_NAMES)}
          </select>
        ),
    },
    { head: 'Since', cell: (a) => when(a.createdAt) },
    { head: 'State', cell: (a) => (a.disabledAt ? `Disabled ${when(a.disabledAt)}` : 'Active') },
  ];
  const disableCell = actionColumn<Admin>(
    'Disable',
    (a) => a.username,
    (a) => !a.disabledAt,
    (a) => void onDisable(a.id, a.username),
  );
  return (
    <div className="stack">
      <Card title="Admins">
        {row.error && <Alert kind="error">{row.error}</Alert>}
        <DataTable testId="admins-table" columns={[...columns, disableCell]} rows={admins.data?.admins} rowKey={(a) => a.id} empty="No admins." />
      </Card>
      <Card title="Add an admin" description="They sign in at /admin with this username and password.">
        <form onSubmit={onCreate} noValidate>
          <FormField form={form} name="username" label="New admin username" autoComplete="off" />
          <FormField form={form} name="password" label="New admin password" type="password" autoComplete="new-password" />
          <SelectField label="Role" {...form.register('role')}>
            {roleOptions(ROLE_LABELS)}
          </SelectField>
          <Button type="submit" loading={create.isPending}>
            Add admin
          </Button>
        </form>
      </Card>
    </div>
  );
}
