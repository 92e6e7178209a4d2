/**
 * One user in the admin panel: profile and status, balances, 30 days of usage, proxy accounts,
 * plan subscriptions and buckets, billing history and sessions; suspend / unsuspend and balance corrections, each with a reason.
 */
import { useState, type FormEvent } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  adjustBalanceInput,
  centsToUsd,
  formatGb,
  gbBreakdown,
  roleMayUse,
  setUserPriceInput,
  suspendUserInput,
  usdToCents,
  type SetUserPriceInput,
} from '@proxyhub/core';
import type { Resolver } from 'react-hook-form';
import { billingStatus } from '../../lib/billing-status';
import { errorMessage } from '../../lib/errors';
import { firstError, FormField, setFormError, submitWith, useActionForm, useSchemaForm } from '../../lib/form';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { CONNECTION_PAGES, ConnectionsTable, connectionPages, csvQuery, type ConnectionFilters } from '../connections-table';
import { DataTable, type Column } from '../data-table';
import { Alert, Button, Card, Spinner } from '../ui';
import { formatBytes } from '../../lib/bytes';
import { UsageChart } from '../usage-chart';

const STATUS_BADGE: Record<string, string> = { active: 'badge-green', unverified: 'badge-amber', suspended: 'badge-red' };

type Detail = RouterOutputs['admin']['user'];
const ACCOUNT_KIND: Record<string, string> = { main: 'Main', sub: 'Sub-account', batch: 'Batch' };
const ACCOUNT_COLUMNS: Column<Detail['proxyAccounts'][number]>[] = [
  { head: 'Proxy user ID', className: 'mono', cell: (a) => a.proxyUserId },
  { head: 'Name', cell: (a) => a.name },
  { head: 'Kind', cell: (a) => ACCOUNT_KIND[a.kind] ?? a.kind },
  { head: 'Used', num: true, cell: (a) => formatBytes(a.usedBytes) },
  { head: 'Cap', num: true, cell: (a) => (a.capBytes === null ? '—' : formatBytes(a.capBytes)) },
  { head: 'State', cell: (a) => (a.disabled ? 'Disabled' : 'Active') },
];
const day = (d: string) => new Date(d).toLocaleDateString();
const SUBSCRIPTION_STATUS: Record<string, string> = { active: 'Active', cancelled: 'Renewal cancelled', lapsed: 'Lapsed' };
const SUBSCRIPTION_COLUMNS: Column<Detail['subscriptions'][number]>[] = [
  { head: 'Plan', cell: (s) => s.planName },
  { head: 'Status', cell: (s) => SUBSCRIPTION_STATUS[s.status] ?? s.status },
  { head: 'Period', cell: (s) => `${day(s.periodStart)} – ${day(s.periodEnd)}` },
  { head: 'Used', num: true, cell: (s) => `${formatGb(BigInt(s.usedBytes))} of ${formatGb(BigInt(s.allowanceBytes))} GB` },
  { head: 'Carried over', num: true, cell: (s) => `${formatGb(BigInt(s.carriedBytes))} GB` },
  { head: 'Renews', cell: (s) => (s.renewsAt ? day(s.renewsAt) : '—') },
];
const BUCKET_COLUMNS: Column<Detail['planBuckets'][number]>[] = [
  { head: 'Plan', cell: (b) => `${b.planName}, period ${b.period}` },
  { head: 'Granted', num: true, cell: (b) => `${formatGb(BigInt(b.grantedBytes) + BigInt(b.carriedBytes))} GB` },
  { head: 'Used', num: true, cell: (b) => formatBytes(b.usedBytes) },
  { head: 'Remaining', num: true, cell: (b) => formatBytes(b.remainingBytes) },
  { head: 'Ends', cell: (b) => day(b.endsAt) },
  { head: 'State', cell: (b) => (b.closedAt ? 'Closed' : 'Open') },
];
const BILLING_COLUMNS: Column<Detail['billing'][number]>[] = [
  { head: 'Date', cell: (e) => new Date(e.createdAt).toLocaleString() },
  { head: 'Description', cell: (e) => e.description },
  { head: 'Status', cell: (e) => billingStatus(e).label },
  { head: 'Amount', num: true, cell: (e) => `${formatGb(BigInt(e.bytes))} GB` },
];

export function AdminUserDetail({ id, onBack }: { id: string; onBack: () => void }) {
  const utils = trpc.useUtils();
  const user = trpc.admin.user.useQuery({ id }, { staleTime: 0 });
  const me = trpc.admin.me.useQuery();
  // Finance reads users only: the actions are not offered (the server refuses them too).
  const acts = !!me.data && roleMayUse(me.data.role, 'userActions');
  const owner = !!me.data && roleMayUse(me.data.role, 'policy');
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
        {owner && <ExemptionCard id={id} exempt={d.profile.targetPolicyExempt} onDone={refresh} />}
        {me.data && roleMayUse(me.data.role, 'pricing') && <OwnPriceCard id={id} current={d.profile.pricePerGbCents} onDone={refresh} />}
      </div>
      <Card title="Usage, last 30 days" description={`${formatBytes(total)} in 30 days, UTC`}>
        <UsageChart points={d.usageByDay} granularity="day" totalBytes={total} testId="admin-user-usage-chart" />
      </Card>
      <Card title={`Proxy accounts (${d.proxyAccounts.length})`}>
        <DataTable columns={ACCOUNT_COLUMNS} rows={d.proxyAccounts} rowKey={(a) => a.proxyUserId} empty="No proxy accounts." />
      </Card>
      <Card title={`Subscriptions (${d.subscriptions.length})`}>
        <DataTable
          testId="admin-user-subscriptions"
          columns={SUBSCRIPTION_COLUMNS}
          rows={d.subscriptions}
          rowKey={(s) => s.id}
          empty="No plan subscriptions."
        />
      </Card>
      <Card title={`Plan buckets (${d.planBuckets.length})`} description="Each period's allowance: what is left of an open bucket expires at its end.">
        <DataTable testId="admin-user-buckets" columns={BUCKET_COLUMNS} rows={d.planBuckets} rowKey={(b) => b.id} empty="No plan buckets." />
      </Card>
      <Card title="Billing">
        <DataTable testId="admin-user-billing" columns={BILLING_COLUMNS} rows={d.billing} rowKey={(e) => e.id} empty="No credits or orders yet." />
      </Card>
      <Card title="Connections" description="The user's connection log, newest first (what they see on their Connections page).">
        <ConnectionsTable
          testId="admin-user-connections"
          query={(filters) => useAdminUserConnections(id, filters)}
          csvHref={(f) => csvQuery(`/admin/users/${id}/connections`, f)}
        />
      </Card>
    </div>
  );
}

function useAdminUserConnections(id: string, filters: ConnectionFilters) {
  return connectionPages(trpc.admin.userConnections.useInfiniteQuery({ id, ...filters, pageSize: 100 }, CONNECTION_PAGES));
}

const suspendResolver = zodResolver(suspendUserInput);
/** The own price as typed, in dollars; blank is "no rate of their own" (null). The API takes cents. */
type OwnPriceValues = { id: string; pricePerGbCents: string };
const ownPriceResolver: Resolver<OwnPriceValues, unknown, SetUserPriceInput> = (values, context, options) =>
  zodResolver(setUserPriceInput)(
    { id: values.id, pricePerGbCents: values.pricePerGbCents.trim() === '' ? null : usdToCents(values.pricePerGbCents) },
    context,
    { ...options, names: undefined },
  );
const adjustResolver = zodResolver(adjustBalanceInput);
/** A blank change is a missing number (the schema's "must be a number"), not 0. */
const deltaOptions = { setValueAs: (v: string | number) => (typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v)) };

function SuspendCard({ id, suspended, onDone }: { id: string; suspended: boolean; onDone: () => Promise<void> }) {
  const form = useSchemaForm(suspendResolver, { id, reason: '' });
  const suspend = trpc.admin.suspendUser.useMutation();
  const unsuspend = trpc.admin.unsuspendUser.useMutation();
  async function run(change: () => Promise<unknown>) {
    try {
      await change();
      form.reset();
      await onDone();
    } catch (err) {
      setFormError(form, errorMessage(err, 'The change failed'));
    }
  }
  const onSuspend = submitWith(form, (input) => run(() => suspend.mutateAsync(input)), 'The change failed');
  // Unsuspending asks no reason: one given goes to the audit log, the server checks it.
  const onSubmit = suspended
    ? (e: FormEvent) => {
        e.preventDefault();
        form.clearErrors();
        void run(() => unsuspend.mutateAsync({ id, reason: form.getValues('reason').trim() || undefined }));
      }
    : onSuspend;
  const error = firstError(form);
  return (
    <Card
      title={suspended ? 'Unsuspend' : 'Suspend'}
      description={
        suspended
          ? 'Sign-in, the API key and the proxy credentials work again.'
          : 'Sign-in, sessions, the API key and the proxy credentials stop within seconds.'
      }
    >
      <form onSubmit={onSubmit} noValidate>
        {error && <Alert kind="error">{error}</Alert>}
        <FormField form={form} name="reason" showError={false} label={suspended ? 'Reason (optional)' : 'Reason'} />
        <Button type="submit" variant={suspended ? 'primary' : 'danger'} loading={suspend.isPending || unsuspend.isPending}>
          {suspended ? 'Unsuspend user' : 'Suspend user'}
        </Button>
      </form>
    </Card>
  );
}

/** Owners: the user's connections skip the target policy (within seconds, at their next credential check). */
function ExemptionCard({ id, exempt, onDone }: { id: string; exempt: boolean; onDone: () => Promise<void> }) {
  const patch = trpc.admin.patchUser.useMutation({ onSuccess: onDone });
  return (
    <Card title="Target policy" description="An exempt customer's connections are not checked against the blocked domains or raw IP rule.">
      {patch.error && <Alert kind="error">{errorMessage(patch.error, 'The change failed')}</Alert>}
      <label className="check">
        <input type="checkbox" checked={exempt} disabled={patch.isPending} onChange={(e) => patch.mutate({ id, targetPolicyExempt: e.target.checked })} />
        <span>Exempt from the target policy</span>
      </label>
    </Card>
  );
}

/** The user's own price per GB (finance and owners): orders use it where it is below the price list's. */
function OwnPriceCard({ id, current, onDone }: { id: string; current: number | null; onDone: () => Promise<void> }) {
  const patch = trpc.admin.patchUser.useMutation();
  const { form, onSubmit, outcome } = useActionForm(
    ownPriceResolver,
    { id, pricePerGbCents: current === null ? '' : centsToUsd(current) },
    async (input) => {
      await patch.mutateAsync(input);
      await onDone();
      return input.pricePerGbCents === null ? 'Own price removed: the price list applies.' : `Own price set to $${centsToUsd(input.pricePerGbCents)} per GB.`;
    },
    (err) => errorMessage(err, 'Setting the price failed'),
  );
  return (
    <Card title="Own price" description="Dollars per GB for this user's crypto orders, used where lower than the price list's. Empty: the price list's.">
      <form onSubmit={onSubmit} noValidate data-testid="own-price-form">
        {outcome}
        <FormField form={form} name="pricePerGbCents" label="Price per GB ($)" inputMode="decimal" placeholder="Price list" />
        <Button type="submit" loading={patch.isPending}>
          Save price
        </Button>
      </form>
    </Card>
  );
}

function AdjustCard({ id, onDone }: { id: string; onDone: () => Promise<void> }) {
  const adjust = trpc.admin.adjustUserBalance.useMutation();
  const [done, setDone] = useState<string | null>(null);
  const form = useSchemaForm(adjustResolver, { id, deltaGB: Number.NaN, reason: '' });
  const onSubmit = submitWith(
    form,
    async (input) => {
      try {
        const r = await adjust.mutateAsync(input);
        setDone(`Adjusted by ${formatGb(BigInt(r.deltaBytes))} GB.`);
        form.reset();
        await onDone();
      } catch (err) {
        setFormError(form, errorMessage(err, 'The adjustment failed'));
      }
    },
    'The adjustment failed',
  );
  const error = firstError(form);
  return (
    <Card title="Adjust balance" description="Positive adds, negative takes away; never below zero. The user sees it in Billing.">
      <form
        onSubmit={(e) => {
          setDone(null);
          onSubmit(e);
        }}
        noValidate
      >
        {error && <Alert kind="error">{error}</Alert>}
        {done && <Alert kind="success">{done}</Alert>}
        <FormField form={form} name="deltaGB" options={deltaOptions} showError={false} label="Amount (GB)" inputMode="decimal" />
        <FormField form={form} name="reason" showError={false} label="Adjustment reason" />
        <Button type="submit" loading={adjust.isPending}>
          Apply adjustment
        </Button>
      </form>
    </Card>
  );
}
