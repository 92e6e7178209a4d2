import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { gbBreakdown } from '@proxyhub/core';
import { BurnCard } from '../components/burn-card';
import { RenewalNotices } from '../components/subscriptions-card';
import { Card, PageHeader } from '../components/ui';
import { GbNote, useExactBytes } from '../components/units';
import { UsagePanel } from '../components/usage-panel';
import { useSession } from '../session';
import { fmt } from '../lib/format';
import { usePageTitle } from '../lib/page-title';

export function DashboardPage() {
  const { t } = useTranslation('dashboard');
  const exactBytes = useExactBytes();
  usePageTitle(t('title'));
  // Live: the balance and usage move while traffic runs.
  const user = useSession({ live: true }).data!;
  // Rounded so that Remaining + Total Usage is exactly what was bought (core's one GB rule).
  const gb = gbBreakdown(user.credits, user.total_usage_bytes);
  const remaining = fmt.gbDecimal(gb.remaining);
  const usage = fmt.gbDecimal(gb.used);
  return (
    <>
      {/* "Welcome back" only for someone who has signed in before this session. */}
      <PageHeader title={t('title')} subtitle={user.returning ? t('welcomeBack', { name: user.name }) : t('welcomeNew', { name: user.name })} />
      <RenewalNotices />
      <div className="stats">
        <div className="stat stat-primary">
          <span className="stat-label">{t('stats.remaining')}</span>
          <span className="stat-value" data-testid="remaining-data" title={exactBytes(user.credits)}>
            {remaining}
          </span>
          {user.planBytes > 0n && (
            <span className="stat-foot" data-testid="plan-bytes" title={exactBytes(user.planBytes)}>
              {t('stats.plan', {
                plan: fmt.gb(user.planBytes),
                until: user.planEndsAt ? fmt.date(user.planEndsAt) : '-',
                payg: fmt.gb(user.credits - user.planBytes),
              })}
            </span>
          )}
          <Link to="/topup" className="stat-link">
            {t('stats.topUp')}
          </Link>
        </div>
        <div className="stat">
          <span className="stat-label">{t('stats.totalUsage')}</span>
          <span className="stat-value" data-testid="total-usage" title={exactBytes(user.total_usage_bytes)}>
            {usage}
          </span>
          <span className="stat-foot">{t('stats.allTraffic')}</span>
        </div>
        <div className="stat">
          <span className="stat-label">{t('stats.proxyUserId')}</span>
          <span className="stat-value stat-mono" data-testid="proxy-user-id">
            {user.proxyUserId}
          </span>
          <Link to="/proxies" className="stat-link">
            {t('stats.generate')}
          </Link>
        </div>
      </div>
      <GbNote />
      <UsagePanel />
      <BurnCard />
      <Card title={t('account.title')}>
        <dl className="info-list">
          <div>
            <dt>{t('account.name')}</dt>
            <dd>{user.name}</dd>
          </div>
          <div>
            <dt>{t('account.email')}</dt>
            <dd>{user.email}</dd>
          </div>
          <div>
            <dt>{t('account.proxyUserId')}</dt>
            <dd className="mono">{user.proxyUserId}</dd>
          </div>
          <div>
            <dt>{t('account.remaining')}</dt>
            <dd>{remaining}</dd>
          </div>
          <div>
            <dt>{t('account.usage')}</dt>
            <dd>{usage}</dd>
          </div>
          <div>
            <dt>{t('account.bought')}</dt>
            <dd data-testid="total-bought">{fmt.gbDecimal(gb.bought)}</dd>
          </div>
        </dl>
      </Card>
    </>
  );
}
