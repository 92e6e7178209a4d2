/** Every code with its state; an unused one can be revoked. */
import { useState } from 'react';
import { ADMIN_CODE_STATUSES } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, FilterBar, useListFilter } from '../data-table';
import { Alert, Button, Card } from '../ui';
import { when } from './format';

type Code = RouterOutputs['admin']['codes']['codes'][number];

export function AdminCodes() {
  const filter = useListFilter<(typeof ADMIN_CODE_STATUSES)[number]>();
  const [error, setError] = useState<string | null>(null);
  const utils = trpc.useUtils();
  const codes = trpc.admin.codes.useQuery({ ...filter.input, pageSize: 100 }, { placeholderData: (p) => p });
  const revoke = trpc.admin.revokeCode.useMutation();
  async function onRevoke(code: string) {
    if (!window.confirm(`Revoke ${code}? It will no longer redeem.`)) return;
    setError(null);
    try {
      await revoke.mutateAsync({ code });
      await utils.admin.codes.invalidate();
    } catch (err) {
      setError(errorMessage(err, 'Revoking failed'));
    }
  }
  return (
    <Card
      title={`Codes (${codes.data?.total ?? '…'})`}
      actions={
        <FilterBar
          id="code"
          search={{ label: 'Search codes', placeholder: 'Code or redeemer email', value: filter.q, onChange: filter.setQ }}
          status={{
            label: 'Code status',
            all: 'All codes',
            options: ADMIN_CODE_STATUSES,
            optionLabel: (s) => s[0]!.toUpperCase() + s.slice(1),
            value: filter.status,
            onChange: filter.setStatus,
          }}
        />
      }
    >
      {error && <Alert kind="error">{error}</Alert>}
      <DataTable<Code>
        testId="codes-table"
        rows={codes.data?.codes}
        rowKey={(c) => c.code}
        empty="No codes found."
        columns={[
          { head: 'Code', className: 'mono', cell: (c) => c.code },
          { head: 'GB', num: true, cell: (c) => c.creditsGB.toFixed(2) },
          { head: 'State', cell: (c) => c.status },
          { head: 'Redeemed by', cell: (c) => (c.redeemedBy ? `${c.redeemedBy.email} · ${when(c.redeemedAt)}` : '—') },
          { head: 'Created', cell: (c) => when(c.createdAt) },
          {
            head: '',
            cell: (c) =>
              c.status === 'unused' && (
                <Button variant="secondary" onClick={() => void onRevoke(c.code)} aria-label={`Revoke ${c.code}`}>
                  Revoke
                </Button>
              ),
          },
        ]}
      />
    </Card>
  );
}
