import { Link } from 'react-router-dom';
import { exactBytes, formatGb, gbBreakdown } from '@proxyhub/core';
import { BurnCard } from '../components/burn-card';
import { RenewalNotices } from '../components/subscriptions-card';
import { Card, PageHeader } from '../components/ui';
import { GbNote } from '../components/units';
import { UsagePanel } from '../components/usage-panel';
import { useSession } from '../session';
import { usePageTitle } from '../lib/page-title';

export function DashboardPage() {
  usePageTitle('Dashboard');
  // Live: the balance and usage move while traffic runs.
  const user = useSession({ live: true }).data!;
  // Rounded so that Remaining + Total Usage is exactly what was bought (core's one GB rule).
  const gb = gbBreakdown(user.credits, user.total_usage_bytes);
  const remaining = `${gb.remaining} GB`;
  const usage = `${gb.used} GB`;
  return (
    <>
      {/* "Welcome back" only for someone who has signed in before this session. */}
      <PageHeader title="Dashboard" subtitle={user.returning ? `Welcome back, ${user.name}` : `Welcome to ProxyHub, ${user.name}!`} />
      <RenewalNotices />
      <div className="stats">
        <div className="stat stat-primary">
          <span className="stat-label">Remaining Data</span>
          <span className="stat-value" data-testid="remaining-data" title={exactBytes(user.credits)}>
            {remaining}
          </span>
          {user.planBytes > 0n && (
            <span className="stat-foot" data-testid="plan-bytes" title={exactBytes(user.planBytes)}>
              Plan: {formatGb(user.planBytes)} GB until {user.planEndsAt ? new Date(user.planEndsAt).toLocaleDateString() : '-'} · Pay as you go:{' '}
              {formatGb(user.credits - user.planBytes)} GB
            </span>
          )}
          <Link to="/topup" className="stat-link">
            Top up →
          </Link>
        </div>
        <div className="stat">
          <span className="stat-label">Total Usage</span>
          <span className="stat-value" data-testid="total-usage" title={exactBytes(user.total_usage_bytes)}>
            {usage}
          </span>
          <span className="stat-foot">All proxy traffic so far</span>
        </div>
        <div className="stat">
          <span className="stat-label">Proxy User ID</span>
          <span className="stat-value stat-mono" data-testid="proxy-user-id">
            {user.proxyUserId}
          </span>
          <Link to="/proxies" className="stat-link">
            Generate proxies →
          </Link>
        </div>
      </div>
      <GbNote />
      <UsagePanel />
      <BurnCard />
      <Card title="Account Information">
        <dl className="info-list">
          <div>
            <dt>Name</dt>
            <dd>{user.name}</dd>
          </div>
          <div>
            <dt>Email</dt>
            <dd>{user.email}</dd>
          </div>
          <div>
            <dt>Proxy User ID</dt>
            <dd className="mono">{user.proxyUserId}</dd>
          </div>
          <div>
            <dt>Remaining</dt>
            <dd>{remaining}</dd>
          </div>
          <div>
            <dt>Usage</dt>
            <dd>{usage}</dd>
          </div>
          <div>
            <dt>Bought</dt>
            <dd data-testid="total-bought">{gb.bought} GB</dd>
          </div>
        </dl>
      </Card>
    </>
  );
}
