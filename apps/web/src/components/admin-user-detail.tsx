/**
 * One user in the admin panel: profile and status, balances, 30 days of usage, proxy accounts,
 * billing history and sessions; suspend / unsuspend and balance corrections, each with a reason.
 */
import { useState, type FormEvent } from 'react';
import { adjustBalanceInput, formatGb, gbBreakdown, roleMayUse, suspendUserInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { validate } from '../lib/validation';
import { trpc } from '../trpc';
import { Alert, Button, Card, Field, Spinner } from './ui';
import { formatBytes } from '../lib/bytes';
import { UsageChart } from './usage-chart';

const STATUS_BADGE: Record<string, string> = { active: 'badge-green', unverified: 'badge-amber', suspended: 'badge-red' };

export function AdminUserDetail({ id, onBack }: { id: string; onBack: () => void }) {
  const utils = trpc.useUtils();
  const user = trpc.admin.user.useQuery({ id }, { staleTime: 0 });
  const me = trpc.admin.me.useQuery();
  // Finance reads users only: the actions are not offered (the server refuses them too).
  const acts = !!me.data && roleMayUse(me.data.role, 'userActions');
  const refresh = async () => {
    await Promise.all([utils.admin.user.invalidate({ id }), utils.admin.users.invalidate()]);
  };
  if (user.isPending) return <Spinner label="Loading user..." />;
  if (user.isError) {
    return (
      <Card title="User">
        <Alert kind="error">{errorMessage(user.error, 'Failed to load the user')}</Alert>
        <Button variant="secondary" onClick={onBack}>
          Back to users
        </Button>
      </Card>
    );
  }
  const d = user.data;
  const total = d.usageByDay.reduce((n, p) => n + BigInt(p.bytesUp) + BigInt(p.bytesDown), 0n);
  return (
    <div className="stack" data-testid="admin-user-detail">
      <Card
        title={d.profile.email}
        description={`${d.profile.deletedAt ? `Account deleted by its owner ${new Date(d.profile.deletedAt).toLocaleString()}` : d.profile.name} · ${d.profile.authType === 'google' ? 'Google' : 'Email'} sign-in · joined ${new Date(d.profile.createdAt).toLocaleDateString()}${d.profile.twoFactor ? ' · 2FA on' : ''}`}
        actions={
          <Button variant="secondary" onClick={onBack}>
            Back to users
          </Button>
        }
      >
        <p>
          <span className={`badge ${STATUS_BADGE[d.profile.status] ?? 'badge-gray'}`} data-testid="admin-user-status">
            {d.profile.status[0]!.toUpperCase() + d.profile.status.slice(1)}
          </span>
          {d.profile.suspension && (
            <span className="muted small" data-testid="admin-user-suspension">
              {' '}
              Suspended {new Date(d.profile.suspension.at).toLocaleString()} by {d.profile.suspension.by}: {d.profile.suspension.reason}
            </span>
          )}
        </p>
        <dl className="info-list">
          <div>
            <dt>Remaining</dt>
            <dd data-testid="admin-user-remaining">{gbBreakdown(BigInt(d.balances.remainingBytes), BigInt(d.balances.usedBytes)).remaining} GB</dd>
          </div>
          <div>
            <dt>Held by gateways</dt>
            <dd>{formatBytes(d.balances.leasedBytes)}</dd>
          </div>
          <div>
            <dt>Used</dt>
            <dd>{gbBreakdown(BigInt(d.balances.remainingBytes), BigInt(d.balances.usedBytes)).used} GB</dd>
          </div>
          <div>
            <dt>Active sessions</dt>
            <dd>{d.sessions.active}</dd>
          </div>
        </dl>
      </Card>
      <div className="grid-2">
        {acts && d.profile.status !== 'deleted' && <SuspendCard id={id} suspended={d.profile.status === 'suspended'} onDone={refresh} />}
        {acts && <AdjustCard id={id} onDone={refresh} />}
      </div>
      <Card title="Usage, last 30 days" description={`${formatBytes(total)} in 30 days, UTC`}>
        <UsageChart points={d.usageByDay} granularity="day" totalBytes={total} testId="admin-user-usage-chart" />
      </Card>
      <Card title={`Proxy accounts (${d.proxyAccounts.length})`}>
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Proxy user ID</th>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col" className="num">
                  Used
                </th>
                <th scope="col" className="num">
                  Cap
                </th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {d.proxyAccounts.map((a) => (
                <tr key={a.proxyUserId}>
                  <td className="mono">{a.proxyUserId}</td>
                  <td>{a.name}</td>
                  <td>{a.kind}</td>
                  <td className="num">{formatBytes(a.usedBytes)}</td>
                  <td className="num">{a.capBytes === null ? '—' : formatBytes(a.capBytes)}</td>
                  <td>{a.disabled ? 'Disabled' : 'Active'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>
      <Card title="Billing">
        <div className="table-wrap">
          <table className="table" data-testid="admin-user-billing">
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Description</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody>
              {d.billing.length === 0 ? (
                <tr>
                  <td colSpan={4} className="table-empty">
                    No credits or orders yet.
                  </td>
                </tr>
              ) : (
                d.billing.map((e) => (
                  <tr key={e.id}>
                    <td>{new Date(e.createdAt).toLocaleString()}</td>
                    <td>{e.description}</td>
                    <td>{e.history ? (e.history.map((h) => h.status).at(-1) ?? '') : 'credited'}</td>
                    <td className="num">{formatGb(BigInt(e.bytes))} GB</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      </Card>
    </div>
  );
}

function SuspendCard({ id, suspended, onDone }: { id: string; suspended: boolean; onDone: () => Promise<void> }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const suspend = trpc.admin.suspendUser.useMutation();
  const unsuspend = trpc.admin.unsuspendUser.useMutation();
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      if (suspended) await unsuspend.mutateAsync({ id, reason: reason.trim() || undefined });
      else {
        const checked = validate(suspendUserInput, { id, reason });
        if (!checked.ok) return setError(Object.values(checked.errors)[0] ?? 'Invalid input');
        await suspend.mutateAsync(checked.data);
      }
      setReason('');
      await onDone();
    } catch (err) {
      setError(errorMessage(err, 'The change failed'));
    }
  }
  return (
    <Card
      title={suspended ? 'Unsuspend' : 'Suspend'}
      description={
        suspended
          ? 'Sign-in, the API key and the proxy credentials work again.'
          : 'Sign-in, sessions, the API key and the proxy credentials stop within seconds.'
      }
    >
      <form onSubmit={(e) => void onSubmit(e)} noValidate>
        {error && <Alert kind="error">{error}</Alert>}
        <Field label={suspended ? 'Reason (optional)' : 'Reason'} value={reason} onChange={(e) => setReason(e.target.value)} />
        <Button type="submit" variant={suspended ? 'primary' : 'danger'} loading={suspend.isPending || unsuspend.isPending}>
          {suspended ? 'Unsuspend user' : 'Suspend user'}
        </Button>
      </form>
    </Card>
  );
}

function AdjustCard({ id, onDone }: { id: string; onDone: () => Promise<void> }) {
  const [delta, setDelta] = useState('');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const adjust = trpc.admin.adjustUserBalance.useMutation();
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setDone(null);
    const checked = validate(adjustBalanceInput, { id, deltaGB: delta.trim() === '' ? Number.NaN : Number(delta), reason });
    if (!checked.ok) return setError(Object.values(checked.errors)[0] ?? 'Invalid input');
    try {
      const r = await adjust.mutateAsync(checked.data);
      setDone(`Adjusted by ${formatGb(BigInt(r.deltaBytes))} GB.`);
      setDelta('');
      setReason('');
      await onDone();
    } catch (err) {
      setError(errorMessage(err, 'The adjustment failed'));
    }
  }
  return (
    <Card title="Adjust balance" description="Positive adds, negative takes away; never below zero. The user sees it in Billing.">
      <form onSubmit={(e) => void onSubmit(e)} noValidate>
        {error && <Alert kind="error">{error}</Alert>}
        {done && <Alert kind="success">{done}</Alert>}
        <Field label="Change (GB)" inputMode="decimal" value={delta} onChange={(e) => setDelta(e.target.value)} />
        <Field label="Adjustment reason" value={reason} onChange={(e) => setReason(e.target.value)} />
        <Button type="submit" loading={adjust.isPending}>
          Apply adjustment
        </Button>
      </form>
    </Card>
  );
}
