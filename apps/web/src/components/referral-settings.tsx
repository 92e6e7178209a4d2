/** Settings card: the user's referral link and what it has earned so far. */
import { formatGb } from '@proxyhub/core';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Card, CopyButton, Field, Spinner } from './ui';

const STATUS_LABEL = { pending: 'Pending', credited: 'Credited', cancelled: 'Cancelled (refunded)', not_eligible: 'Not eligible' } as const;

function statusText(e: Entry): string {
  if (e.status === 'pending') return `Pending until ${new Date(e.dueAt).toLocaleDateString()}`;
  if (e.status === 'not_eligible' && e.reason) return `${STATUS_LABEL.not_eligible}: ${e.reason}`;
  return STATUS_LABEL[e.status];
}

type Entry = RouterOutputs['referrals']['summary']['entries'][number];
const COLUMNS: Column<Entry>[] = [
  { head: 'Date', cell: (e) => new Date(e.createdAt).toLocaleDateString() },
  { head: 'Referred user', cell: (e) => e.referredUser },
  { head: 'Order', num: true, cell: (e) => `${e.orderGb} GB` },
  { head: 'Earning', num: true, cell: (e) => `${formatGb(e.bytes)} GB` },
  { head: 'Status', cell: statusText },
];

export function ReferralSettings() {
  const summary = trpc.referrals.summary.useQuery(undefined, { staleTime: 0 });
  const s = summary.data;
  return (
    <Card
      title="Referrals"
      description="Share your link. When someone who signed up with it pays for a crypto top-up, you earn a share of its data, credited after a waiting period."
    >
      {!s ? (
        <Spinner label="Loading..." />
      ) : (
        <>
          <div className="form inline-form">
            <Field label="Your referral link" value={s.link} readOnly data-testid="referral-link" onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={s.link} label="Copy link" />
          </div>
          <dl className="stat-list" data-testid="referral-stats">
            <div>
              <dt>Signed up</dt>
              <dd data-testid="referral-referred">{s.referred}</dd>
            </div>
            <div>
              <dt>Pending</dt>
              <dd data-testid="referral-pending">{formatGb(s.pendingBytes)} GB</dd>
            </div>
            <div>
              <dt>Earned</dt>
              <dd data-testid="referral-earned">{formatGb(s.earnedBytes)} GB</dd>
            </div>
          </dl>
          {s.entries.length > 0 && (
            <DataTable
              label="Referral earnings"
              columns={COLUMNS}
              rows={s.entries}
              rowKey={(e) => e.id}
              rowProps={() => ({ 'data-testid': 'referral-row' })}
              empty={null}
            />
          )}
        </>
      )}
    </Card>
  );
}
