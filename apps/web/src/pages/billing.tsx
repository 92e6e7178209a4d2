import { useState } from 'react';
import { DataTable, type Column } from '../components/data-table';
import { Alert, Button, Card, PageHeader, Spinner } from '../components/ui';
import { Bytes, GbNote } from '../components/units';
import { billingStatus } from '../lib/billing-status';
import { errorMessage } from '../lib/errors';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { usePageTitle } from '../lib/page-title';
import { SubscriptionsCard } from '../components/subscriptions-card';

type Entry = RouterOutputs['billing']['list']['entries'][number];

const KIND_LABEL: Record<Entry['kind'], string> = {
  code: 'Top-up code',
  crypto: 'Crypto payment',
  batch: 'Batch',
  adjustment: 'Adjustment',
  refund: 'Refund',
  reversal: 'Reversal',
  gift: 'Gift code',
  referral: 'Referral',
  plan: 'Plan',
};

/** A waiting order: its invoice to pay and Cancel; a part-paid one: its invoice to pay the rest. */
function OrderActions({ entry, onChanged }: { entry: Entry; onChanged: () => Promise<unknown> }) {
  const cancel = trpc.credits.cancelCryptoPayment.useMutation();
  const [error, setError] = useState<string | null>(null);
  const partPaid = entry.invoiceUrl && !entry.cancellable;
  return (
    <span className="row-actions">
      {entry.invoiceUrl && <a href={entry.invoiceUrl}>{partPaid ? 'Pay the rest' : 'Resume payment'}</a>}
      {entry.cancellable && (
        <Button
          variant="ghost"
          loading={cancel.isPending}
          aria-label={`Cancel order ${entry.id.slice(0, 8)}`}
          onClick={() => {
            setError(null);
            cancel.mutate(
              { paymentId: entry.id },
              { onSuccess: () => void onChanged(), onError: (e) => setError(errorMessage(e, 'Failed to cancel the order')) },
            );
          }}
        >
          Cancel
        </Button>
      )}
      {error && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}

const columns = (onChanged: () => Promise<unknown>): Column<Entry>[] => [
  { head: 'Date', cell: (e) => new Date(e.createdAt).toLocaleString() },
  { head: 'Type', cell: (e) => KIND_LABEL[e.kind] },
  { head: 'Description', cell: (e) => e.description },
  {
    head: 'Status',
    cell: (e) => {
      const status = billingStatus(e);
      return <span className={`billing-status ${status.className}`}>{status.label}</span>;
    },
  },
  { head: 'Amount', num: true, className: (e) => (e.bytes.startsWith('-') ? 'amount-negative' : ''), cell: (e) => <Bytes bytes={e.bytes} gb signed /> },
  {
    head: 'Receipt',
    cell: (e) =>
      e.kind === 'crypto' && e.history?.some((h) => h.status === 'paid') ? (
        <a href={`/billing/receipts/${e.id}`} target="_blank" rel="noreferrer">
          Receipt
        </a>
      ) : e.kind === 'crypto' && (e.invoiceUrl || e.cancellable) ? (
        <OrderActions entry={e} onChanged={onChanged} />
      ) : (
        '—'
      ),
  },
];

export function BillingPage() {
  usePageTitle('Billing');
  const list = trpc.billing.list.useInfiniteQuery({ limit: 50 }, { getNextPageParam: (page) => page.nextCursor ?? undefined, staleTime: 0 });
  const entries = list.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <>
      <PageHeader title="Billing" subtitle="Every top-up, batch and crypto order on your account, newest first." />
      <SubscriptionsCard />
      <Card
        title="History"
        actions={
          <a className="btn btn-secondary" href="/api/billing?format=csv" download>
            Download CSV
          </a>
        }
      >
        {list.isError && <Alert kind="error">{errorMessage(list.error, 'Failed to load billing history')}</Alert>}
        <DataTable
          testId="billing-table"
          columns={columns(() => list.refetch())}
          rows={list.isPending ? undefined : entries}
          rowKey={(e) => e.id}
          rowProps={() => ({ 'data-testid': 'billing-row' })}
          loading={<Spinner label="Loading..." />}
          empty="Nothing yet: top up with a code or crypto to see it here."
        />
        {list.hasNextPage && (
          <Button variant="secondary" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
            Load more
          </Button>
        )}
        <GbNote />
      </Card>
    </>
  );
}
