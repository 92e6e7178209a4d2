import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { formatGb } from '@proxyhub/core';
import type { RouterOutputs } from '../session';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Card, Spinner } from './ui';

type Subscription = RouterOutputs['subscriptions']['list']['subscriptions'][number];

/** A GB figure without its unit ("1.00", "1,00"): the unit follows the allowance. */
const gbFigure = (bytes: bigint) => fmt.number(Number(formatGb(bytes)), { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Stops renewal of one subscription; its current period runs to its end. */
function CancelRenewal({ sub, onChanged }: { sub: Subscription; onChanged: () => Promise<unknown> }) {
  const { t } = useTranslation('billing');
  const cancel = trpc.subscriptions.cancel.useMutation();
  const [error, setError] = useState<string | null>(null);
  return (
    <span className="row-actions">
      <Button
        variant="ghost"
        loading={cancel.isPending}
        aria-label={t('subscriptions.cancelRenewalLabel', { plan: sub.plan.name })}
        onClick={() => {
          setError(null);
          cancel.mutate({ id: sub.id }, { onSuccess: () => void onChanged(), onError: (e) => setError(errorMessage(e, t('subscriptions.cancelFailed'))) });
        }}
      >
        {t('subscriptions.cancelRenewal')}
      </Button>
      {error && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}

const columns = (t: TFunction<'billing'>, onChanged: () => Promise<unknown>): Column<Subscription>[] => [
  { head: t('subscriptions.plan'), cell: (s) => s.plan.name },
  { head: t('words.status'), cell: (s) => t(`subscriptions.status.${s.status}`) },
  { head: t('subscriptions.period'), cell: (s) => `${fmt.date(s.periodStart)} – ${fmt.date(s.periodEnd)}` },
  // "1.00 of 5.00 GB": the unit once, after the allowance.
  { head: t('subscriptions.used'), num: true, cell: (s) => t('subscriptions.usedOf', { used: gbFigure(s.usedBytes), allowance: fmt.gb(s.allowanceBytes) }) },
  { head: t('subscriptions.carried'), num: true, cell: (s) => fmt.gb(s.carriedBytes) },
  { head: t('subscriptions.renews'), cell: (s) => (s.renewsAt ? fmt.date(s.renewsAt) : '—') },
  { head: '', cell: (s) => (s.status === 'active' ? <CancelRenewal sub={s} onChanged={onChanged} /> : null) },
];

/** The caller's plan subscriptions (GET /api/subscriptions); nothing until they have one. */
export function SubscriptionsCard() {
  const { t } = useTranslation('billing');
  const list = trpc.subscriptions.list.useQuery(undefined, { staleTime: 0 });
  if (list.isSuccess && list.data.subscriptions.length === 0) return null;
  return (
    <Card title={t('subscriptions.title')} description={t('subscriptions.description')}>
      {list.isError && <Alert kind="error">{errorMessage(list.error, t('subscriptions.loadFailed'))}</Alert>}
      <DataTable
        testId="subscriptions-table"
        columns={columns(t, () => list.refetch())}
        rows={list.isPending ? undefined : list.data?.subscriptions}
        rowKey={(s) => s.id}
        rowProps={() => ({ 'data-testid': 'subscription-row' })}
        loading={<Spinner label={t('words.loading')} />}
        empty={t('subscriptions.empty')}
      />
    </Card>
  );
}

/**
 * "Your plan X renews on <date>" with a Pay button to the next period's invoice, while a renewal
 * notice's invoice waits (the plan clock opens it seven days before the period's end; paid, it goes).
 */
export function RenewalNotices() {
  const { t } = useTranslation('billing');
  const list = trpc.subscriptions.list.useQuery(undefined, { staleTime: 0 });
  const due = (list.data?.subscriptions ?? []).filter((s) => s.renewsAt && s.renewalInvoiceUrl);
  if (!due.length) return null;
  return (
    <>
      {due.map((s) => (
        <Alert kind="info" key={s.id}>
          <span data-testid="renewal-notice">
            {t('subscriptions.renewal', { plan: s.plan.name, date: fmt.date(s.renewsAt!) })}{' '}
            <a className="btn btn-primary" href={s.renewalInvoiceUrl!} aria-label={t('subscriptions.payLabel', { plan: s.plan.name })}>
              {t('subscriptions.pay')}
            </a>
          </span>
        </Alert>
      ))}
    </>
  );
}
