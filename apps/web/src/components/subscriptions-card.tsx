import { useState } from 'react';
import { formatGb } from '@proxyhub/core';
import type { RouterOutputs } from '../session';
import { errorMessage } from '../lib/errors';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Card, Spinner } from './ui';

type Subscription = RouterOutputs['subscriptions']['list']['subscriptions'][number];

const STATUS_LABEL: Record<Subscription['status'], string> = { active: 'Active', cancelled: 'Renewal cancelled', lapsed: 'Lapsed' };
const day = (d: Date | string) => new Date(d).toLocaleDateString();

/** Stops renewal of one subscription; its current period runs to its end. */
function CancelRenewal({ sub, onChanged }: { sub: Subscription; onChanged: () => Promise<unknown> }) {
  const cancel = trpc.subscriptions.cancel.useMutation();
  const [error, setError] = useState<string | null>(null);
  return (
    <span className="row-actions">
      <Button
        variant="ghost"
        loading={cancel.isPending}
        aria-label={`Cancel renewal of ${sub.plan.name}`}
        onClick={() => {
          setError(null);
          cancel.mutate({ id: sub.id }, { onSuccess: () => void onChanged(), onError: (e) => setError(errorMessage(e, 'Failed to cancel renewal')) });
        }}
      >
        Cancel renewal
      </Button>
      {error && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}

const columns = (onChanged: () => Promise<unknown>): Column<Subscription>[] => [
  { head: 'Plan', cell: (s) => s.plan.name },
  { head: 'Status', cell: (s) => STATUS_LABEL[s.status] },
  { head: 'Period', cell: (s) => `${day(s.periodStart)} – ${day(s.periodEnd)}` },
  { head: 'Used', num: true, cell: (s) => `${formatGb(s.usedBytes)} of ${formatGb(s.allowanceBytes)} GB` },
  { head: 'Carried over', num: true, cell: (s) => `${formatGb(s.carriedBytes)} GB` },
  { head: 'Renews', cell: (s) => (s.renewsAt ? day(s.renewsAt) : '—') },
  { head: '', cell: (s) => (s.status === 'active' ? <CancelRenewal sub={s} onChanged={onChanged} /> : null) },
];

/** The caller's plan subscriptions (GET /api/subscriptions); nothing until they have one. */
export function SubscriptionsCard() {
  const list = trpc.subscriptions.list.useQuery(undefined, { staleTime: 0 });
  if (list.isSuccess && list.data.subscriptions.length === 0) return null;
  return (
    <Card title="Subscriptions" description="Your plans: each period's allowance is spent before pay-as-you-go data and ends with the period.">
      {list.isError && <Alert kind="error">{errorMessage(list.error, 'Failed to load subscriptions')}</Alert>}
      <DataTable
        testId="subscriptions-table"
        columns={columns(() => list.refetch())}
        rows={list.isPending ? undefined : list.data?.subscriptions}
        rowKey={(s) => s.id}
        rowProps={() => ({ 'data-testid': 'subscription-row' })}
        loading={<Spinner label="Loading..." />}
        empty="No subscriptions."
      />
    </Card>
  );
}

/**
 * "Your plan X renews on <date>" with a Pay button to the next period's invoice, while a renewal
 * notice's invoice waits (the plan clock opens it seven days before the period's end; paid, it goes).
 */
export function RenewalNotices() {
  const list = trpc.subscriptions.list.useQuery(undefined, { staleTime: 0 });
  const due = (list.data?.subscriptions ?? []).filter((s) => s.renewsAt && s.renewalInvoiceUrl);
  if (!due.length) return null;
  return (
    <>
      {due.map((s) => (
        <Alert kind="info" key={s.id}>
          <span data-testid="renewal-notice">
            Your plan {s.plan.name} renews on {day(s.renewsAt!)}: pay the next period to keep its allowance.{' '}
            <a className="btn btn-primary" href={s.renewalInvoiceUrl!} aria-label={`Pay the renewal of ${s.plan.name}`}>
              Pay
            </a>
          </span>
        </Alert>
      ))}
    </>
  );
}
