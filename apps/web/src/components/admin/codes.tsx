/** Every code with its state; an unused one can be revoked. */
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { ADMIN_CODE_STATUSES } from '@proxyhub/core';
import { fmt } from '../../lib/format';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, FilterBar, useListFilter, type Column, type StatusChoice } from '../data-table';
import { Alert, Card } from '../ui';
import { when } from './format';
import { actionColumn, useRowAction } from './row-action';

type Code = RouterOutputs['admin']['codes']['codes'][number];

type CodeStatus = (typeof ADMIN_CODE_STATUSES)[number];

const columns = (t: TFunction<'admin'>): Column<Code>[] => [
  { head: t('codes.code'), className: 'mono', cell: (c) => c.code },
  { head: t('codes.gb'), num: true, cell: (c) => fmt.number(c.creditsGB, { minimumFractionDigits: 2, maximumFractionDigits: 2 }) },
  { head: t('codes.state'), cell: (c) => <span data-status={c.status}>{t(`codeState.${c.status}`)}</span> },
  { head: t('codes.redeemedBy'), cell: (c) => (c.redeemedBy ? `${c.redeemedBy.email} · ${when(c.redeemedAt)}` : '—') },
  { head: t('codes.created'), cell: (c) => when(c.createdAt) },
];

const statusChoice = (t: TFunction<'admin'>): StatusChoice<CodeStatus> => ({
  label: t('codes.statusLabel'),
  all: t('codes.all'),
  options: ADMIN_CODE_STATUSES,
  optionLabel: (s) => t(`codeStatus.${s}`),
});

export function AdminCodes() {
  const { t } = useTranslation('admin');
  const filter = useListFilter<CodeStatus>();
  const utils = trpc.useUtils();
  const codes = trpc.admin.codes.useQuery({ ...filter.input, pageSize: 100 }, { placeholderData: (p) => p });
  const revoke = trpc.admin.revokeCode.useMutation();
  const row = useRowAction();
  const onRevoke = (code: string) =>
    row.act(t('codes.revokeQuestion', { code }), t('codes.revokeFailed'), async () => {
      await revoke.mutateAsync({ code });
      await utils.admin.codes.invalidate();
    });
  const revokeCell = actionColumn<Code>(
    t('codes.revoke'),
    (c) => c.code,
    (c) => c.status === 'unused',
    (c) => void onRevoke(c.code),
  );
  return (
    <Card
      title={t('codes.title', { total: codes.data?.total ?? '…' })}
      actions={
        <FilterBar id="code" filter={filter} search={{ label: t('codes.search'), placeholder: t('codes.searchPlaceholder') }} status={statusChoice(t)} />
      }
    >
      {row.error && <Alert kind="error">{row.error}</Alert>}
      <DataTable testId="codes-table" columns={[...columns(t), revokeCell]} rows={codes.data?.codes} rowKey={(c) => c.code} empty={t('codes.empty')} />
    </Card>
  );
}
