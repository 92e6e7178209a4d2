/** The admins: add one, disable one (never the last active). */
import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
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
/** The roles as options: by name (`roles`) or with what each may do (`roleChoices`). */
const roleOptions = (label: (r: AdminRole) => string) =>
  ADMIN_ROLES.map((r) => (
    <option key={r} value={r}>
      {label(r)}
    </option>
  ));

export function AdminAdmins() {
  const { t } = useTranslation('admin');
  const roleName = (r: AdminRole) => t(`roles.${r}`);
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
        row.setError(errorMessage(err, t('admins.addFailed')));
      }
    },
    t('admins.addFailed'),
  );
  const onDisable = (id: string, name: string) =>
    row.act(t('admins.disableQuestion', { name }), t('admins.disableFailed'), async () => {
      await disable.mutateAsync({ id });
      await utils.admin.admins.invalidate();
    });
  const onRole = async (id: string, role: AdminRole) => {
    row.setError(null);
    try {
      await update.mutateAsync({ id, role });
    } catch (err) {
      row.setError(errorMessage(err, t('admins.roleFailed')));
    }
    await utils.admin.admins.invalidate();
  };
  const columns: Column<Admin>[] = [
    { head: t('admins.username'), cell: (a) => a.username },
    {
      head: t('admins.role'),
      cell: (a) =>
        a.disabledAt ? (
          roleName(a.role)
        ) : (
          <select aria-label={t('admins.roleOf', { name: a.username })} value={a.role} onChange={(e) => void onRole(a.id, e.target.value as AdminRole)}>
            {roleOptions(roleName)}
          </select>
        ),
    },
    { head: t('admins.since'), cell: (a) => when(a.createdAt) },
    { head: t('admins.state'), cell: (a) => (a.disabledAt ? t('admins.disabledAt', { when: when(a.disabledAt) }) : t('admins.active')) },
  ];
  const disableCell = actionColumn<Admin>(
    t('admins.disable'),
    (a) => a.username,
    (a) => !a.disabledAt,
    (a) => void onDisable(a.id, a.username),
  );
  return (
    <div className="stack">
      <Card title={t('admins.title')}>
        {row.error && <Alert kind="error">{row.error}</Alert>}
        <DataTable testId="admins-table" columns={[...columns, disableCell]} rows={admins.data?.admins} rowKey={(a) => a.id} empty={t('admins.empty')} />
      </Card>
      <Card title={t('admins.addTitle')} description={t('admins.addDescription')}>
        <form onSubmit={onCreate} noValidate>
          <FormField form={form} name="username" label={t('admins.newUsername')} autoComplete="off" />
          <FormField form={form} name="password" label={t('admins.newPassword')} type="password" autoComplete="new-password" />
          <SelectField label={t('admins.role')} {...form.register('role')}>
            {roleOptions((r) => t(`roleChoices.${r}`))}
          </SelectField>
          <Button type="submit" loading={create.isPending}>
            {t('admins.add')}
          </Button>
        </form>
      </Card>
    </div>
  );
}
