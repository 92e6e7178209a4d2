/**
 * One user in the admin panel: profile and status, balances, 30 days of usage, proxy accounts,
 * plan subscriptions and buckets, billing history and sessions; suspend / unsuspend and balance corrections, each with a reason.
 */
import { useState, type FormEvent } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  adjustBalanceInput,
  centsToUsd,
  gbBreakdown,
  roleMayUse,
  setUserPriceInput,
  suspendUserInput,
  usdToCents,
  type SetUserPriceInput,
} from '@proxyhub/core';
import type { Resolver } from 'react-hook-form';
import { billingLineText } from '../../lib/billing-line';
import { billingStatus } from '../../lib/billing-status';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import { firstError, FormField, setFormError, submitWith, useActionForm, useSchemaForm } from '../../lib/form';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { CONNECTION_PAGES, ConnectionsTable, connectionPages, csvQuery, type ConnectionFilters } from '../connections-table';
import { DataTable, type Column } from '../data-table';
import { Alert, Button, Card, Spinner } from '../ui';
import { formatBytes } from '../../lib/bytes';
import { UsageChart } from '../usage-chart';
import { gbFigure, gbText } from './words';

const STATUS_BADGE: Record<string, string> = { active: 'badge-green', unverified: 'badge-amber', suspended: 'badge-red' };

type Detail = RouterOutputs['admin']['user'];
type T = TFunction<'admin'>;
const accountColumns = (t: T): Column<Detail['proxyAccounts'][number]>[] => [
  { head: t('user.proxyUserId'), className: 'mono', cell: (a) => a.proxyUserId },
  { head: t('user.name'), cell: (a) => a.name },
  {
    head: t('user.kind'),
    cell: (a) => t(`user.accountKind.${a.kind}`),
  },
  { head: t('user.used'), num: true, cell: (a) => formatBytes(a.usedBytes) },
  { head: t('user.cap'), num: true, cell: (a) => (a.capBytes === null ? '—' : formatBytes(a.capBytes)) },
  { head: t('user.state'), cell: (a) => (a.disabled ? t('user.disabled') : t('user.active')) },
];
const day = (d: string) => fmt.date(d);
const subscriptionColumns = (t: T): Column<Detail['subscriptions'][number]>[] => [
  { head: t('user.plan'), cell: (s) => s.planName },
  {
    head: t('user.status'),
    cell: (s) => t(`user.subscriptionStatus.${s.status}`),
  },
  { head: t('user.period'), cell: (s) => `${day(s.periodStart)} – ${day(s.periodEnd)}` },
  {
    head: t('user.used'),
    num: true,
    cell: (s) => t('user.usedOf', { used: gbFigure(s.usedBytes), allowance: fmt.gb(s.allowanceBytes) }),
  },
  { head: t('user.carriedOver'), num: true, cell: (s) => fmt.gb(s.carriedBytes) },
  { head: t('user.renews'), cell: (s) => (s.renewsAt ? day(s.renewsAt) : '—') },
];
const bucketColumns = (t: T): Column<Detail['planBuckets'][number]>[] => [
  { head: t('user.plan'), cell: (b) => t('user.bucketPlan', { plan: b.planName, period: b.period }) },
  { head: t('user.granted'), num: true, cell: (b) => fmt.gb(BigInt(b.grantedBytes) + BigInt(b.carriedBytes)) },
  { head: t('user.used'), num: true, cell: (b) => formatBytes(b.usedBytes) },
  { head: t('user.remaining'), num: true, cell: (b) => formatBytes(b.remainingBytes) },
  { head: t('user.ends'), cell: (b) => day(b.endsAt) },
  { head: t('user.state'), cell: (b) => (b.closedAt ? t('user.closed') : t('user.open')) },
];
const billingColumns = (t: T): Column<Detail['billing'][number]>[] => [
  { head: t('user.date'), cell: (e) => fmt.dateTime(e.createdAt) },
  { head: t('user.description'), cell: (e) => billingLineText(e.line) },
  { head: t('user.status'), cell: (e) => billingStatus(e).label },
  { head: t('user.amount'), num: true, cell: (e) => fmt.gb(e.bytes) },
];

export function AdminUserDetail({ id, onBack }: { id: string; onBack: () => void }) {
  const { t } = useTranslation('admin');
  // The billing lines are worded by the billing catalogue.
  useTranslation('billing');
  const utils = trpc.useUtils();
  const user = trpc.admin.user.useQuery({ id }, { staleTime: 0 });
  const me = trpc.admin.me.useQuery();
  // Finance reads users only: the actions are not offered (the server refuses them too).
  const acts = !!me.data && roleMayUse(me.data.role, 'userActions');
  const owner = !!me.data && roleMayUse(me.data.role, 'policy');
  const refresh = async () => {
    await Promise.all([utils.admin.user.invalidate({ id }), utils.admin.users.invalidate()]);
  };
  if (user.isPending) return <Spinner label={t('user.loading')} />;
  if (user.isError) {
    return (
      <Card title={t('user.title')}>
        <Alert kind="error">{errorMessage(user.error, t('user.loadFailed'))}</Alert>
        <Button variant="secondary" onClick={onBack}>
          {t('user.back')}
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
        description={[
          d.profile.deletedAt ? t('user.deletedByOwner', { when: fmt.dateTime(d.profile.deletedAt) }) : d.profile.name,
          d.profile.authType === 'google' ? t('user.googleSignIn') : t('user.emailSignIn'),
          t('user.joined', { date: fmt.date(d.profile.createdAt) }),
          ...(d.profile.twoFactor ? [t('user.twoFactorOn')] : []),
        ].join(' · ')}
        actions={
          <Button variant="secondary" onClick={onBack}>
            {t('user.back')}
          </Button>
        }
      >
        <p>
          <span className={`badge ${STATUS_BADGE[d.profile.status] ?? 'badge-gray'}`} data-testid="admin-user-status">
            {t(`userStatus.${d.profile.status}`)}
          </span>
          {d.profile.suspension && (
            <span className="muted small" data-testid="admin-user-suspension">
              {' '}
              {t('user.suspendedBy', { when: fmt.dateTime(d.profile.suspension.at), by: d.profile.suspension.by, reason: d.profile.suspension.reason ?? '' })}
            </span>
          )}
        </p>
        <dl className="info-list">
          <div>
            <dt>{t('user.remaining')}</dt>
            <dd data-testid="admin-user-remaining">{gbText(gbBreakdown(BigInt(d.balances.remainingBytes), BigInt(d.balances.usedBytes)).remaining)}</dd>
          </div>
          <div>
            <dt>{t('user.heldByGateways')}</dt>
            <dd>{formatBytes(d.balances.leasedBytes)}</dd>
          </div>
          <div>
            <dt>{t('user.used')}</dt>
            <dd>{gbText(gbBreakdown(BigInt(d.balances.remainingBytes), BigInt(d.balances.usedBytes)).used)}</dd>
          </div>
          <div>
            <dt>{t('user.activeSessions')}</dt>
            <dd>{fmt.number(d.sessions.active)}</dd>
          </div>
        </dl>
      </Card>
      <div className="grid-2">
        {acts && d.profile.status !== 'deleted' && <SuspendCard id={id} suspended={d.profile.status === 'suspended'} onDone={refresh} />}
        {acts && <AdjustCard id={id} onDone={refresh} />}
        {owner && <ExemptionCard id={id} exempt={d.profile.targetPolicyExempt} onDone={refresh} />}
        {me.data && roleMayUse(me.data.role, 'pricing') && <OwnPriceCard id={id} current={d.profile.pricePerGbCents} onDone={refresh} />}
      </div>
      <Card title={t('user.usageTitle')} description={t('user.inThirtyDays', { total: formatBytes(total) })}>
        <UsageChart points={d.usageByDay} granularity="day" totalBytes={total} testId="admin-user-usage-chart" />
      </Card>
      <Card title={t('user.proxyAccounts', { count: d.proxyAccounts.length })}>
        <DataTable columns={accountColumns(t)} rows={d.proxyAccounts} rowKey={(a) => a.proxyUserId} empty={t('user.noProxyAccounts')} />
      </Card>
      <Card title={t('user.subscriptions', { count: d.subscriptions.length })}>
        <DataTable
          testId="admin-user-subscriptions"
          columns={subscriptionColumns(t)}
          rows={d.subscriptions}
          rowKey={(s) => s.id}
          empty={t('user.noSubscriptions')}
        />
      </Card>
      <Card title={t('user.buckets', { count: d.planBuckets.length })} description={t('user.bucketsDescription')}>
        <DataTable testId="admin-user-buckets" columns={bucketColumns(t)} rows={d.planBuckets} rowKey={(b) => b.id} empty={t('user.noBuckets')} />
      </Card>
      <Card title={t('user.billing')}>
        <DataTable testId="admin-user-billing" columns={billingColumns(t)} rows={d.billing} rowKey={(e) => e.id} empty={t('user.noBilling')} />
      </Card>
      <Card title={t('user.connections')} description={t('user.connectionsDescription')}>
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
  const { t } = useTranslation('admin');
  const form = useSchemaForm(suspendResolver, { id, reason: '' });
  const suspend = trpc.admin.suspendUser.useMutation();
  const unsuspend = trpc.admin.unsuspendUser.useMutation();
  async function run(change: () => Promise<unknown>) {
    try {
      await change();
      form.reset();
      await onDone();
    } catch (err) {
      setFormError(form, errorMessage(err, t('user.changeFailed')));
    }
  }
  const onSuspend = submitWith(form, (input) => run(() => suspend.mutateAsync(input)), t('user.changeFailed'));
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
    <Card title={suspended ? t('user.unsuspend') : t('user.suspend')} description={suspended ? t('user.unsuspendDescription') : t('user.suspendDescription')}>
      <form onSubmit={onSubmit} noValidate>
        {error && <Alert kind="error">{error}</Alert>}
        <FormField form={form} name="reason" showError={false} label={suspended ? t('user.reasonOptional') : t('user.reason')} />
        <Button type="submit" variant={suspended ? 'primary' : 'danger'} loading={suspend.isPending || unsuspend.isPending}>
          {suspended ? t('user.unsuspendUser') : t('user.suspendUser')}
        </Button>
      </form>
    </Card>
  );
}

/** Owners: the user's connections skip the target policy (within seconds, at their next credential check). */
function ExemptionCard({ id, exempt, onDone }: { id: string; exempt: boolean; onDone: () => Promise<void> }) {
  const { t } = useTranslation('admin');
  const patch = trpc.admin.patchUser.useMutation({ onSuccess: onDone });
  return (
    <Card title={t('user.policyTitle')} description={t('user.policyDescription')}>
      {patch.error && <Alert kind="error">{errorMessage(patch.error, t('user.changeFailed'))}</Alert>}
      <label className="check">
        <input type="checkbox" checked={exempt} disabled={patch.isPending} onChange={(e) => patch.mutate({ id, targetPolicyExempt: e.target.checked })} />
        <span>{t('user.exempt')}</span>
      </label>
    </Card>
  );
}

/** The user's own price per GB (finance and owners): orders use it where it is below the price list's. */
function OwnPriceCard({ id, current, onDone }: { id: string; current: number | null; onDone: () => Promise<void> }) {
  const { t } = useTranslation('admin');
  const patch = trpc.admin.patchUser.useMutation();
  const { form, onSubmit, outcome } = useActionForm(
    ownPriceResolver,
    { id, pricePerGbCents: current === null ? '' : centsToUsd(current) },
    async (input) => {
      await patch.mutateAsync(input);
      await onDone();
      return input.pricePerGbCents === null ? t('user.ownPriceRemoved') : t('user.ownPriceSet', { price: fmt.cents(input.pricePerGbCents) });
    },
    (err) => errorMessage(err, t('user.ownPriceFailed')),
  );
  return (
    <Card title={t('user.ownPriceTitle')} description={t('user.ownPriceDescription')}>
      <form onSubmit={onSubmit} noValidate data-testid="own-price-form">
        {outcome}
        <FormField form={form} name="pricePerGbCents" label={t('user.pricePerGb')} inputMode="decimal" placeholder={t('user.priceList')} />
        <Button type="submit" loading={patch.isPending}>
          {t('user.savePrice')}
        </Button>
      </form>
    </Card>
  );
}

function AdjustCard({ id, onDone }: { id: string; onDone: () => Promise<void> }) {
  const { t } = useTranslation('admin');
  const adjust = trpc.admin.adjustUserBalance.useMutation();
  const [done, setDone] = useState<string | null>(null);
  const form = useSchemaForm(adjustResolver, { id, deltaGB: Number.NaN, reason: '' });
  const onSubmit = submitWith(
    form,
    async (input) => {
      try {
        const r = await adjust.mutateAsync(input);
        setDone(t('user.adjusted', { amount: fmt.gb(r.deltaBytes) }));
        form.reset();
        await onDone();
      } catch (err) {
        setFormError(form, errorMessage(err, t('user.adjustFailed')));
      }
    },
    t('user.adjustFailed'),
  );
  const error = firstError(form);
  return (
    <Card title={t('user.adjustTitle')} description={t('user.adjustDescription')}>
      <form
        onSubmit={(e) => {
          setDone(null);
          onSubmit(e);
        }}
        noValidate
      >
        {error && <Alert kind="error">{error}</Alert>}
        {done && <Alert kind="success">{done}</Alert>}
        <FormField form={form} name="deltaGB" options={deltaOptions} showError={false} label={t('user.amountGb')} inputMode="decimal" />
        <FormField form={form} name="reason" showError={false} label={t('user.adjustReason')} />
        <Button type="submit" loading={adjust.isPending}>
          {t('user.apply')}
        </Button>
      </form>
    </Card>
  );
}
