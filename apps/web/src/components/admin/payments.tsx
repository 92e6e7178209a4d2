/** Every crypto order with its history, filterable by state. */
import { centsToUsd, PAYMENT_STATUSES } from '@proxyhub/core';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, FilterBar, useListFilter } from '../data-table';
import { Card } from '../ui';

type Payment = RouterOutputs['admin']['payments']['payments'][number];

export function AdminPayments() {
  const filter = useListFilter<(typeof PAYMENT_STATUSES)[number]>();
  const payments = trpc.admin.payments.useQuery({ ...filter.input, pageSize: 100 }, { placeholderData: (p) => p });
  return (
    <Card
      title={`Payments (${payments.data?.total ?? '…'})`}
      actions={
        <FilterBar
          id="payment"
          search={{ label: 'Search payments', placeholder: 'User email or order ID', value: filter.q, onChange: filter.setQ }}
          status={{
            label: 'Payment status',
            all: 'All payments',
            options: PAYMENT_STATUSES,
            optionLabel: (s) => s.replace('_', ' '),
            value: filter.status,
            onChange: filter.setStatus,
          }}
        />
      }
    >
      <DataTable<Payment>
        testId="payments-table"
        rows={payments.data?.payments}
        rowKey={(p) => p.id}
        empty="No payments found."
        columns={[
          { head: 'Order', className: 'mono', cell: (p) => p.id.slice(0, 8) },
          { head: 'User', cell: (p) => p.userEmail },
          { head: 'Amount', num: true, cell: (p) => `$${centsToUsd(p.priceCents)} · ${p.gbAmount} GB` },
          { head: 'Status', cell: (p) => p.status },
          { head: 'History', className: 'small', cell: (p) => p.events.map((e) => `${e.status} ${new Date(e.createdAt).toLocaleTimeString()}`).join(' → ') },
        ]}
      />
    </Card>
  );
}
