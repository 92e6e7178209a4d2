import { formatGb, type OrderStep } from '@proxyhub/core';
import { Alert, Button, Card, PageHeader, Spinner } from '../components/ui';
import { errorMessage } from '../lib/errors';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';

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
};

const STEP_LABEL: Record<OrderStep, string> = {
  created: 'Created',
  waiting: 'Waiting for payment',
  confirming: 'Confirming',
  paid: 'Paid',
  failed: 'Failed',
  expired: 'Expired',
  refunded: 'Refunded',
};

function statusOf(e: Entry): { label: string; className: string } {
  if (e.kind !== 'crypto') return { label: 'Credited', className: 'credited' };
  const last = e.history?.at(-1)?.status ?? 'created';
  return { label: STEP_LABEL[last], className: last };
}

function amount(bytes: string): string {
  const b = BigInt(bytes);
  return `${b > 0n ? '+' : ''}${formatGb(b)} GB`;
}

export function BillingPage() {
  const list = trpc.billing.list.useInfiniteQuery({ limit: 50 }, { getNextPageParam: (page) => page.nextCursor ?? undefined, staleTime: 0 });
  const entries = list.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <>
      <PageHeader title="Billing" subtitle="Every top-up, batch and crypto order on your account, newest first." />
      <Card
        title="History"
        actions={
          <a className="btn btn-secondary" href="/api/billing?format=csv" download>
            Download CSV
          </a>
        }
      >
        {list.isError && <Alert kind="error">{errorMessage(list.error, 'Failed to load billing history')}</Alert>}
        <div className="table-wrap">
          <table className="table" data-testid="billing-table">
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Type</th>
                <th scope="col">Description</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col">Receipt</th>
              </tr>
            </thead>
            <tbody>
              {list.isPending ? (
                <tr>
                  <td colSpan={6} className="table-empty">
                    <Spinner label="Loading..." />
                  </td>
                </tr>
              ) : entries.length === 0 ? (
                <tr>
                  <td colSpan={6} className="table-empty">
                    Nothing yet: top up with a code or crypto to see it here.
                  </td>
                </tr>
              ) : (
                entries.map((e) => {
                  const status = statusOf(e);
                  const paid = e.kind === 'crypto' && e.history?.some((h) => h.status === 'paid');
                  return (
                    <tr key={e.id} data-testid="billing-row">
                      <td>{new Date(e.createdAt).toLocaleString()}</td>
                      <td>{KIND_LABEL[e.kind]}</td>
                      <td>{e.description}</td>
                      <td>
                        <span className={`billing-status ${status.className}`}>{status.label}</span>
                      </td>
                      <td className={`num${e.bytes.startsWith('-') ? ' amount-negative' : ''}`}>{amount(e.bytes)}</td>
                      <td>
                        {paid ? (
                          <a href={`/billing/receipts/${e.id}`} target="_blank" rel="noreferrer">
                            Receipt
                          </a>
                        ) : (
                          '—'
                        )}
                      </td>
                    </tr>
                  );
                })
              )}
            </tbody>
          </table>
        </div>
        {list.hasNextPage && (
          <Button variant="secondary" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
            Load more
          </Button>
        )}
      </Card>
    </>
  );
}
