import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  CODE_MAX_LENGTH,
  DEFAULT_ORDER_GB,
  DEFAULT_PRICING,
  MIN_ORDER_MESSAGE,
  coerceGbAmount,
  cryptoPaymentInput,
  minOrderGb,
  smallestOrder,
  orderTotalCents,
  ratePerGbCents,
  promotionCodeField,
  redeemCodeInput,
  type Plan,
} from '@proxyhub/core';
import { Alert, Button, Card, Field, PageHeader } from '../components/ui';
import { GbNote } from '../components/units';
import { PlansTable } from '../components/plans-table';
import { RenewalNotices } from '../components/subscriptions-card';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import { FormField, useActionForm } from '../lib/form';
import { useSession, useSessionActions } from '../session';
import { trpc } from '../trpc';
import { usePageTitle } from '../lib/page-title';
import { creditedNotice } from '../lib/notice-text';

/** Whole GB as the language writes them ("12 GB", "12 ГБ"). */
const wholeGb = (gb: number) => fmt.number(gb, { style: 'unit', unit: 'gigabyte' });

export function TopUpPage() {
  const { t } = useTranslation('billing');
  usePageTitle(t('topup.title'));
  const user = useSession().data!;
  const { refresh } = useSessionActions();
  const [params, setParams] = useSearchParams();
  const payment = params.get('payment');
  const prices = usePricing();

  // Back from the payment page: re-read the balance the webhook may just have changed.
  useEffect(() => {
    if (payment) void refresh();
  }, [payment, refresh]);

  return (
    <>
      <PageHeader title={t('topup.title')} subtitle={t('topup.subtitle')} />
      <p className="muted" data-testid="failed-free">
        {t('topup.failedFree')}
      </p>
      {payment === 'finished' && (
        <Alert kind="success" onDismiss={() => setParams({}, { replace: true })}>
          {t('topup.paymentFinished')}
        </Alert>
      )}
      {payment === 'failed' && (
        <Alert kind="error" onDismiss={() => setParams({}, { replace: true })}>
          {t('topup.paymentFailed')}
        </Alert>
      )}
      <RenewalNotices />
      {payment === 'partially_paid' && <PartialPaymentNotice onDismiss={() => setParams({}, { replace: true })} />}
      {payment && payment !== 'finished' && payment !== 'failed' && payment !== 'partially_paid' && (
        <Alert kind="info" onDismiss={() => setParams({}, { replace: true })}>
          {t('topup.paymentPending')}
        </Alert>
      )}
      <div className="balance-banner">
        <div>
          <span className="stat-label">{t('topup.balance')}</span>
          <span className="balance-value" data-testid="balance" title={fmt.number(BigInt(user.credits), { style: 'unit', unit: 'byte', unitDisplay: 'long' })}>
            {fmt.gb(user.credits)}
          </span>
        </div>
        <span className="balance-rate">{t('topup.perGb', { price: fmt.cents(prices.pricing.pricePerGbCents) })}</span>
      </div>
      <div className="grid-2">
        <CryptoTopUp />
        <RedeemCode onRedeemed={refresh} />
      </div>
      <Plans payAsYouGoCents={prices.pricing.pricePerGbCents} />
      <GbNote />
    </>
  );
}

/** The operator's plans beside pay-as-you-go (GET /api/plans); nothing while there are none. */
function Plans({ payAsYouGoCents }: { payAsYouGoCents: number }) {
  const { t } = useTranslation('billing');
  const q = trpc.plans.list.useQuery(undefined, { staleTime: 60_000 });
  if (!q.data?.plans.length) return null;
  return (
    <Card title={t('plans.title')} description={t('plans.description')}>
      <div className="table-wrap">
        <PlansTable plans={q.data.plans} payAsYouGoCents={payAsYouGoCents} action={(p) => <SubscribeButton plan={p} />} />
      </div>
    </Card>
  );
}

/** Subscribing opens the period's invoice, as a crypto top-up does; the subscription starts when it is paid. */
function SubscribeButton({ plan }: { plan: Plan }) {
  const { t } = useTranslation('billing');
  const subscribe = trpc.subscriptions.subscribe.useMutation({ onSuccess: (r) => window.location.assign(r.invoiceUrl) });
  return (
    <span className="row-actions">
      <Button
        variant="secondary"
        loading={subscribe.isPending}
        aria-label={t('plans.subscribeLabel', { plan: plan.name })}
        onClick={() => subscribe.mutate({ planId: plan.id })}
      >
        {t('plans.subscribe')}
      </Button>
      {subscribe.error && (
        <span className="field-error" role="alert">
          {errorMessage(subscribe.error, t('plans.subscribeFailed'))}
        </span>
      )}
    </span>
  );
}

/** The price list in force (GET /api/pricing), the spec's defaults until it has loaded. */
function usePricing() {
  const { t } = useTranslation('billing');
  const q = trpc.credits.pricing.useQuery(undefined, { staleTime: 60_000 });
  const pricing = q.data ?? { ...DEFAULT_PRICING, userPricePerGbCents: null };
  const own = 'userPricePerGbCents' in pricing ? (pricing.userPricePerGbCents ?? null) : null;
  const smallest = smallestOrder(pricing, own);
  // The minimum in whole dollars when it is whole ("$10"), as the spec's message writes it.
  const minPrice = pricing.minOrderCents % 100 === 0 ? fmt.usd(pricing.minOrderCents / 100, true) : fmt.cents(pricing.minOrderCents);
  return {
    pricing,
    rate: (gb: number) => ratePerGbCents(pricing, gb, own),
    total: (gb: number) => orderTotalCents(pricing, gb, own),
    minGb: minOrderGb(pricing),
    minMessage: t('crypto.minimum', { gb: fmt.number(minOrderGb(pricing)), price: minPrice }),
    smallestHint: t('crypto.smallest', { gb: fmt.number(smallest.gb), price: fmt.cents(smallest.totalCents) }),
  };
}

/** Back from an underpaid invoice: what the paid part credited and what is still owed. */
function PartialPaymentNotice({ onDismiss }: { onDismiss: () => void }) {
  const { t } = useTranslation('billing');
  const orders = trpc.credits.payments.useQuery();
  const partial = orders.data?.find((o) => o.status === 'partially_paid');
  return (
    <Alert kind="info" onDismiss={onDismiss}>
      <span data-testid="partial-payment">
        {partial
          ? t('topup.partial', {
              gb: fmt.gb(partial.creditedBytes),
              owed: fmt.cents(Math.max(0, partial.priceCents - (partial.paidCents ?? 0))),
              total: fmt.cents(partial.priceCents),
            })
          : t('topup.partialUnknown')}
      </span>{' '}
      {partial?.invoiceUrl ? (
        <a href={partial.invoiceUrl} data-testid="pay-rest">
          {t('words.payTheRest')}
        </a>
      ) : (
        <Link to="/billing">{t('topup.seeOrder')}</Link>
      )}
    </Alert>
  );
}

/** The bonus a promo code adds to this order, asked of the server as the code is typed. */
function PromoBonus({ code: typed, gbAmount }: { code: string; gbAmount: number }) {
  const { t } = useTranslation('billing');
  // Asked once typing pauses, not at every key.
  const [code, setCode] = useState(typed);
  useEffect(() => {
    const timer = setTimeout(() => setCode(typed), 400);
    return () => clearTimeout(timer);
  }, [typed]);
  const valid = promotionCodeField.safeParse(code).success;
  const preview = trpc.credits.promoPreview.useQuery({ code, gbAmount }, { enabled: valid && code === typed, retry: false });
  if (!code.trim()) return null;
  if (!valid)
    return (
      <p className="field-hint" data-testid="promo-bonus">
        {t('crypto.promoShape')}
      </p>
    );
  if (preview.error)
    return (
      <p className="field-error" role="alert" data-testid="promo-bonus">
        {preview.error.message}
      </p>
    );
  if (!preview.data) return null;
  return (
    <p className="field-hint promo-bonus" data-testid="promo-bonus">
      {t('crypto.bonus', { percent: fmt.number(preview.data.bonusPercent), gb: fmt.gb(preview.data.creditsBytes) })}
    </p>
  );
}

/** "Whole GB only: 12.5 becomes 12" for an amount with a fraction (the spec makes it whole); null otherwise. */
function wholeGbNote(t: TFunction<'billing'>, raw: string): string | null {
  const n = Number(raw);
  return raw.trim() !== '' && Number.isFinite(n) && !Number.isInteger(n) ? t('crypto.wholeOnly', { typed: raw.trim(), whole: coerceGbAmount(raw) }) : null;
}

/** A random order key (crypto.randomUUID needs a secure context; getRandomValues does not). */
function newOrderKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

function CryptoTopUp() {
  const { t } = useTranslation('billing');
  const [promoCode, setPromoCode] = useState('');
  const [raw, setRaw] = useState(String(DEFAULT_ORDER_GB));
  // Said where the amount is made whole, and kept after the field is rewritten on blur.
  const [wholeNote, setWholeNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const create = trpc.credits.createCryptoPayment.useMutation();
  // One key per order meant: a second click (or a retry) of the same order answers the same invoice.
  const orderKey = useRef<string | null>(null);
  const [leaving, setLeaving] = useState(false);
  const prices = usePricing();
  const gbAmount = coerceGbAmount(raw);
  const totalCents = prices.total(gbAmount);
  // The order the server would accept, checked by the same schema and the price list's minimum: an
  // amount it would refuse shows the reason and no price (below the minimum, "Minimum order is 12GB ($10)").
  const check = cryptoPaymentInput.safeParse({ gbAmount, priceUsd: totalCents / 100 });
  // The schema's own minimum message names the default prices: the price list's names those in force.
  const schemaError = check.success ? undefined : check.error.issues[0]?.message;
  const orderError = !check.success
    ? schemaError === undefined || schemaError === MIN_ORDER_MESSAGE
      ? prices.minMessage
      : schemaError
    : gbAmount < prices.minGb
      ? prices.minMessage
      : undefined;
  const total = orderError ? null : fmt.cents(totalCents);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (!check.success) return setError(orderError ?? prices.minMessage);
    if (orderError) return setError(orderError);
    orderKey.current ??= newOrderKey();
    try {
      const r = await create.mutateAsync({ ...check.data, promoCode: promoCode.trim() || null, idempotencyKey: orderKey.current });
      // Disabled until the invoice page has replaced this one.
      setLeaving(true);
      window.location.assign(r.invoiceUrl);
    } catch (err) {
      orderKey.current = null;
      setError(errorMessage(err, t('crypto.failed'), t('crypto.network')));
    }
  }

  return (
    <Card title={t('crypto.title')} description={t('crypto.description')}>
      <form className="form" onSubmit={(e) => void onSubmit(e)} noValidate aria-label={t('crypto.formLabel')}>
        <Field
          label={t('crypto.amount')}
          name="gbAmount"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          value={raw}
          hint={wholeNote ?? prices.smallestHint}
          error={orderError}
          onChange={(e) => {
            setRaw(e.target.value);
            setWholeNote(wholeGbNote(t, e.target.value));
            setError(null);
            orderKey.current = null;
          }}
          onBlur={() => setRaw(String(coerceGbAmount(raw)))}
        />
        <Field
          label={t('crypto.promo')}
          name="promoCode"
          className="code-input mono"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={CODE_MAX_LENGTH}
          value={promoCode}
          onChange={(e) => {
            setPromoCode(e.target.value.toUpperCase().slice(0, CODE_MAX_LENGTH));
            setError(null);
            orderKey.current = null;
          }}
        />
        <PromoBonus code={promoCode} gbAmount={gbAmount} />
        <dl className="price-table">
          <div>
            <dt>{t('crypto.rate')}</dt>
            <dd data-testid="order-rate">{t('crypto.perGb', { price: fmt.cents(prices.rate(gbAmount)) })}</dd>
          </div>
          <div>
            <dt>{t('words.amount')}</dt>
            <dd>{wholeGb(gbAmount)}</dd>
          </div>
          <div className="price-total">
            <dt>{t('crypto.total')}</dt>
            <dd data-testid="order-total">{total ?? '—'}</dd>
          </div>
        </dl>
        {prices.pricing.tiers.length > 0 && (
          <table className="table price-tiers" data-testid="price-tiers">
            <thead>
              <tr>
                <th>{t('crypto.from')}</th>
                <th>{t('crypto.pricePerGb')}</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>{wholeGb(prices.minGb)}</td>
                <td>{fmt.cents(prices.pricing.pricePerGbCents)}</td>
              </tr>
              {prices.pricing.tiers.map((tier) => (
                <tr key={tier.minGb}>
                  <td>{wholeGb(tier.minGb)}</td>
                  <td>{fmt.cents(tier.pricePerGbCents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {error && <Alert kind="error">{error}</Alert>}
        <Button type="submit" block disabled={!total} loading={create.isPending || leaving}>
          {total ? t('crypto.payTotal', { total }) : t('crypto.pay')}
        </Button>
      </form>
    </Card>
  );
}

const redeemResolver = zodResolver(redeemCodeInput);

function RedeemCode({ onRedeemed }: { onRedeemed: () => Promise<void> }) {
  const { t } = useTranslation('billing');
  const redeem = trpc.credits.redeem.useMutation();
  const { form, onSubmit, outcome } = useActionForm(
    redeemResolver,
    { code: '' },
    async (input, f) => {
      const r = await redeem.mutateAsync(input);
      f.reset();
      await onRedeemed();
      return r.message ? creditedNotice(r.message, r.creditedBytes) : t('redeem.redeemed');
    },
    (err) => errorMessage(err, t('redeem.failed'), t('redeem.network')) || t('redeem.unknown'),
  );

  return (
    <Card title={t('redeem.title')} description={t('redeem.description')}>
      <form className="form" onSubmit={onSubmit} noValidate aria-label={t('redeem.formLabel')}>
        <FormField
          form={form}
          name="code"
          transform={(v) => v.toUpperCase().slice(0, CODE_MAX_LENGTH)}
          label={t('redeem.field')}
          className="code-input mono"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={CODE_MAX_LENGTH}
          placeholder={t('redeem.placeholder')}
        />
        {outcome}
        <Button type="submit" block loading={redeem.isPending}>
          {t('redeem.submit')}
        </Button>
      </form>
    </Card>
  );
}
