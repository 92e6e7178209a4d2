/** Every crypto order with its history, filterable by state. */
import { centsToUsd, PAYMENT_STATUSES } from '@proxyhub/core';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, FilterBar, useListFilter, type Column, type StatusChoice } from '../data-table';
import { Card } from '../ui';
import { paymentStatusLabel } from './words';

type Payment = RouterOutputs['admin']['payments']['payments'][number];
type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

const STATUS: StatusChoice<PaymentStatus> = {
  label: 'Payment status',
  all: 'All payments',
  options: PAYMENT_STATUSES,
  optionLabel: paymentStatusLabel,
};
const COLUMNS: Column<Payment>[] = [
  { head: 'Order', className: 'mono', cell: (p) => p.id.slice(0, 8) },
  { head: 'User', cell: (p) => p.userEmail },
  { head: 'Amount', num: true, cell: (p) => `$${centsToUsd(p.priceCents)} · ${p.gbAmount} GB` },
  { head: 'Status', cell: (p) => paymentStatusLabel(p.status) },
  {
    head: 'History',
    className: 'small',
    cell: (p) => p.events.map((e) => `${paymentStatusLabel(e.status)} ${new Date(e.createdAt).toLocaleTimeString()}`).join(' → '),
  },
];

export function AdminPayments() {
  const filter = useListFilter<PaymentStatus>();
  const payments = trpc.admin.payments.useQuery({ ...filter.input, pageSize: 100 }, { placeholderData: (p) => p });
  return (
    <Card
      title={`Payments (${payments.data?.total ?? '…'})`}
      actions={<FilterBar id="payment" filter={filter} search={{ label: 'Search payments', placeholder: 'User email or order ID' }} status={STATUS} />}
    >
      <DataTable testId="payments-table" columns={COLUMNS} rows={payments.data?.payments} rowKey={(p) => p.id} empty="No payments found." />
    </Card>
  );
}
