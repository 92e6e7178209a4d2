/** Settings card: the user's referral link and what it has earned so far. */
import { useTranslation } from 'react-i18next';
import { fmt } from '../lib/format';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Card, CopyButton, Field, Spinner } from './ui';

type Entry = RouterOutputs['referrals']['summary']['entries'][number];

export function ReferralSettings() {
  const { t } = useTranslation('settings');
  const statusText = (e: Entry): string => {
    if (e.status === 'pending') return t('referrals.pendingUntil', { date: fmt.date(e.dueAt) });
    if (e.status === 'not_eligible' && e.reason) return t('referrals.notEligibleBecause', { reason: e.reason });
    return t(`referrals.status.${e.status}`);
  };
  const columns: Column<Entry>[] = [
    { head: t('words.date'), cell: (e) => fmt.date(e.createdAt) },
    { head: t('referrals.referred'), cell: (e) => e.referredUser },
    { head: t('referrals.order'), num: true, cell: (e) => fmt.number(e.orderGb, { style: 'unit', unit: 'gigabyte' }) },
    { head: t('referrals.earning'), num: true, cell: (e) => fmt.gb(e.bytes) },
    { head: t('words.status'), cell: statusText },
  ];
  const summary = trpc.referrals.summary.useQuery(undefined, { staleTime: 0 });
  const s = summary.data;
  return (
    <Card title={t('referrals.title')} description={t('referrals.description')}>
      {!s ? (
        <Spinner label={t('words.loading')} />
      ) : (
        <>
          <div className="form inline-form">
            <Field label={t('referrals.link')} value={s.link} readOnly data-testid="referral-link" onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={s.link} label={t('referrals.copy')} />
          </div>
          <dl className="stat-list" data-testid="referral-stats">
            <div>
              <dt>{t('referrals.signedUp')}</dt>
              <dd data-testid="referral-referred">{fmt.number(s.referred)}</dd>
            </div>
            <div>
              <dt>{t('referrals.pending')}</dt>
              <dd data-testid="referral-pending">{fmt.gb(s.pendingBytes)}</dd>
            </div>
            <div>
              <dt>{t('referrals.earned')}</dt>
              <dd data-testid="referral-earned">{fmt.gb(s.earnedBytes)}</dd>
            </div>
          </dl>
          {s.entries.length > 0 && (
            <DataTable
              label={t('referrals.listLabel')}
              columns={columns}
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
