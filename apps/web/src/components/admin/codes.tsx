/** Every code with its state; an unused one can be revoked. */
import { ADMIN_CODE_STATUSES } from '@proxyhub/core';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, FilterBar, useListFilter, type Column, type StatusChoice } from '../data-table';
import { Alert, Card } from '../ui';
import { when } from './format';
import { actionColumn, useRowAction } from './row-action';

type Code = RouterOutputs['admin']['codes']['codes'][number];

const COLUMNS: Column<Code>[] = [
  { head: 'Code', className: 'mono', cell: (c) => c.code },
  { head: 'GB', num: true, cell: (c) => c.creditsGB.toFixed(2) },
  { head: 'State', cell: (c) => c.status },
  { head: 'Redeemed by', cell: (c) => (c.redeemedBy ? `${c.redeemedBy.email} · ${when(c.redeemedAt)}` : '—') },
  { head: 'Created', cell: (c) => when(c.createdAt) },
];

type CodeStatus = (typeof ADMIN_CODE_STATUSES)[number];
const STATUS: StatusChoice<CodeStatus> = {
  label: 'Code status',
  all: 'All codes',
  options: ADMIN_CODE_STATUSES,
  optionLabel: (s) => s[0]!.toUpperCase() + s.slice(1),
};

export function AdminCodes() {
  const filter = useListFilter<CodeStatus>();
  const utils = trpc.useUtils();
  const codes = trpc.admin.codes.useQuery({ ...filter.input, pageSize: 100 }, { placeholderData: (p) => p });
  const revoke = trpc.admin.revokeCode.useMutation();
  const row = useRowAction();
  const onRevoke = (code: string) =>
    row.act(`Revoke ${code}? It will no longer redeem.`, 'Revoking failed', async () => {
      await revoke.mutateAsync({ code });
      await utils.admin.codes.invalidate();
    });
  const revokeCell = actionColumn<Code>(
    'Revoke',
    (c) => c.code,
    (c) => c.status === 'unused',
    (c) => void onRevoke(c.code),
  );
  return (
    <Card
      title={`Codes (${codes.data?.total ?? '…'})`}
      actions={<FilterBar id="code" filter={filter} search={{ label: 'Search codes', placeholder: 'Code or redeemer email' }} status={STATUS} />}
    >
      {row.error && <Alert kind="error">{row.error}</Alert>}
      <DataTable testId="codes-table" columns={[...COLUMNS, revokeCell]} rows={codes.data?.codes} rowKey={(c) => c.code} empty="No codes found." />
    </Card>
  );
}
