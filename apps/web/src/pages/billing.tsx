import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { DataTable, type Column } from '../components/data-table';
import { Alert, Button, Card, PageHeader, Spinner } from '../components/ui';
import { Bytes, GbNote } from '../components/units';
import { billingLineText } from '../lib/billing-line';
import { billingStatus } from '../lib/billing-status';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { usePageTitle } from '../lib/page-title';
import { SubscriptionsCard } from '../components/subscriptions-card';

type Entry = RouterOutputs['billing']['list']['entries'][number];

/** A waiting order: its invoice to pay and Cancel; a part-paid one: its invoice to pay the rest. */
function OrderActions({ entry, onChanged }: { entry: Entry; onChanged: () => Promise<unknown> }) {
  const { t } = useTranslation('billing');
  const cancel = trpc.credits.cancelCryptoPayment.useMutation();
  const [error, setError] = useState<string | null>(null);
  const partPaid = entry.invoiceUrl && !entry.cancellable;
  return (
    <span className="row-actions">
      {entry.invoiceUrl && <a href={entry.invoiceUrl}>{t(partPaid ? 'words.payTheRest' : 'history.resume')}</a>}
      {entry.cancellable && (
        <Button
          variant="ghost"
          loading={cancel.isPending}
          aria-label={t('history.cancelLabel', { id: entry.id.slice(0, 8) })}
          onClick={() => {
            setError(null);
            cancel.mutate({ paymentId: entry.id }, { onSuccess: () => void onChanged(), onError: (e) => setError(errorMessage(e, t('history.cancelFailed'))) });
          }}
        >
          {t('words.cancel')}
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

const columns = (t: TFunction<'billing'>, onChanged: () => Promise<unknown>): Column<Entry>[] => [
  { head: t('words.date'), cell: (e) => fmt.dateTime(e.createdAt) },
  { head: t('history.type'), cell: (e) => t(`history.kind.${e.kind}`) },
  { head: t('history.description'), cell: (e) => billingLineText(e.line) },
  {
    head: t('words.status'),
    cell: (e) => {
      const status = billingStatus(e);
      return <span className={`billing-status ${status.className}`}>{status.label}</span>;
    },
  },
  {
    head: t('words.amount'),
    num: true,
    className: (e) => (e.bytes.startsWith('-') ? 'amount-negative' : ''),
    cell: (e) => <Bytes bytes={e.bytes} gb signed />,
  },
  {
    head: t('history.receipt'),
    cell: (e) =>
      e.kind === 'crypto' && e.history?.some((h) => h.status === 'paid') ? (
        <a href={`/billing/receipts/${e.id}`} target="_blank" rel="noreferrer">
          {t('history.receipt')}
        </a>
      ) : e.kind === 'crypto' && (e.invoiceUrl || e.cancellable) ? (
        <OrderActions entry={e} onChanged={onChanged} />
      ) : (
        '—'
      ),
  },
];

export function BillingPage() {
  const { t } = useTranslation('billing');
  usePageTitle(t('history.title'));
  const list = trpc.billing.list.useInfiniteQuery({ limit: 50 }, { getNextPageParam: (page) => page.nextCursor ?? undefined, staleTime: 0 });
  const entries = list.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <>
      <PageHeader title={t('history.title')} subtitle={t('history.subtitle')} />
      <SubscriptionsCard />
      <Card
        title={t('history.card')}
        actions={
          <a className="btn btn-secondary" href="/api/billing?format=csv" download>
            {t('history.csv')}
          </a>
        }
      >
        {list.isError && <Alert kind="error">{errorMessage(list.error, t('history.loadFailed'))}</Alert>}
        <DataTable
          testId="billing-table"
          columns={columns(t, () => list.refetch())}
          rows={list.isPending ? undefined : entries}
          rowKey={(e) => e.id}
          rowProps={() => ({ 'data-testid': 'billing-row' })}
          loading={<Spinner label={t('words.loading')} />}
          empty={t('history.empty')}
        />
        {list.hasNextPage && (
          <Button variant="secondary" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
            {t('history.more')}
          </Button>
        )}
        <GbNote />
      </Card>
    </>
  );
}
