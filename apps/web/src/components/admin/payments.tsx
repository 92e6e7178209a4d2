/** Every crypto order with its history, filterable by state. */
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { PAYMENT_STATUSES } from '@proxyhub/core';
import { fmt } from '../../lib/format';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, FilterBar, useListFilter, type Column, type StatusChoice } from '../data-table';
import { Card } from '../ui';
import { gbAmount, paymentStatusLabel } from './words';

type Payment = RouterOutputs['admin']['payments']['payments'][number];
type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

const statusChoice = (t: TFunction<'admin'>): StatusChoice<PaymentStatus> => ({
  label: t('payments.statusLabel'),
  all: t('payments.all'),
  options: PAYMENT_STATUSES,
  optionLabel: (s) => paymentStatusLabel(t, s),
});
const columns = (t: TFunction<'admin'>): Column<Payment>[] => [
  { head: t('payments.order'), className: 'mono', cell: (p) => p.id.slice(0, 8) },
  { head: t('payments.user'), cell: (p) => p.userEmail },
  { head: t('payments.amount'), num: true, cell: (p) => `${fmt.cents(p.priceCents)} · ${gbAmount(p.gbAmount)}` },
  { head: t('payments.status'), cell: (p) => paymentStatusLabel(t, p.status) },
  {
    head: t('payments.history'),
    className: 'small',
    cell: (p) => p.events.map((e) => `${paymentStatusLabel(t, e.status)} ${fmt.time(e.createdAt)}`).join(' → '),
  },
];

export function AdminPayments() {
  const { t } = useTranslation('admin');
  const filter = useListFilter<PaymentStatus>();
  const payments = trpc.admin.payments.useQuery({ ...filter.input, pageSize: 100 }, { placeholderData: (p) => p });
  return (
    <Card
      title={t('payments.title', { total: payments.data?.total ?? '…' })}
      actions={
        <FilterBar
          id="payment"
          filter={filter}
          search={{ label: t('payments.search'), placeholder: t('payments.searchPlaceholder') }}
          status={statusChoice(t)}
        />
      }
    >
      <DataTable testId="payments-table" columns={columns(t)} rows={payments.data?.payments} rowKey={(p) => p.id} empty={t('payments.empty')} />
    </Card>
  );
}
