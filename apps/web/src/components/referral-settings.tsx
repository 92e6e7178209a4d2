/** Settings card: the user's referral link and what it has earned so far. */
import { formatGb } from '@proxyhub/core';
import { trpc } from '../trpc';
import { Card, CopyButton, Field, Spinner } from './ui';

const STATUS_LABEL = { pending: 'Pending', credited: 'Credited', cancelled: 'Cancelled (refunded)' } as const;

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
            <div className="table-wrap">
              <table className="table" aria-label="Referral earnings">
                <thead>
                  <tr>
                    <th scope="col">Date</th>
                    <th scope="col">Referred user</th>
                    <th scope="col" className="num">
                      Order
                    </th>
                    <th scope="col" className="num">
                      Earning
                    </th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {s.entries.map((e) => (
                    <tr key={e.id} data-testid="referral-row">
                      <td>{new Date(e.createdAt).toLocaleDateString()}</td>
                      <td>{e.referredUser}</td>
                      <td className="num">{e.orderGb} GB</td>
                      <td className="num">{formatGb(e.bytes)} GB</td>
                      <td>{e.status === 'pending' ? `Pending until ${new Date(e.dueAt).toLocaleDateString()}` : STATUS_LABEL[e.status]}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </Card>
  );
}
