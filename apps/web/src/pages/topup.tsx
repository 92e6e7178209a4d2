import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  CODE_MAX_LENGTH,
  DEFAULT_ORDER_GB,
  DEFAULT_PRICING,
  MIN_ORDER_MESSAGE,
  centsToUsd,
  coerceGbAmount,
  cryptoPaymentInput,
  exactBytes,
  formatGb,
  minOrderGb,
  minOrderMessage,
  smallestOrderText,
  orderTotalCents,
  ratePerGbCents,
  promotionCodeField,
  redeemCodeInput,
  withGbBeside,
  type Plan,
} from '@proxyhub/core';
import { Alert, Button, Card, Field, PageHeader } from '../components/ui';
import { GbNote } from '../components/units';
import { PlansTable } from '../components/plans-table';
import { RenewalNotices } from '../components/subscriptions-card';
import { errorMessage } from '../lib/errors';
import { FormField, useActionForm } from '../lib/form';
import { useSession, useSessionActions } from '../session';
import { trpc } from '../trpc';
import { usePageTitle } from '../lib/page-title';

export function TopUpPage() {
  usePageTitle('Top Up');
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
      <PageHeader title="Top Up" subtitle="Add data to your account with crypto or a top-up code." />
      <p className="muted" data-testid="failed-free">
        Failed connections are free: a connection that never reaches its target is billed 0 bytes, and our own error answers are never billed.
      </p>
      {payment === 'finished' && (
        <Alert kind="success" onDismiss={() => setParams({}, { replace: true })}>
          Payment received! Your credits have been added to your balance.
        </Alert>
      )}
      {payment === 'failed' && (
        <Alert kind="error" onDismiss={() => setParams({}, { replace: true })}>
          The payment did not go through. No credits were added; you can try again.
        </Alert>
      )}
      <RenewalNotices />
      {payment === 'partially_paid' && <PartialPaymentNotice onDismiss={() => setParams({}, { replace: true })} />}
      {payment && payment !== 'finished' && payment !== 'failed' && payment !== 'partially_paid' && (
        <Alert kind="info" onDismiss={() => setParams({}, { replace: true })}>
          Your payment is being processed. Credits are added as soon as it is confirmed.
        </Alert>
      )}
      <div className="balance-banner">
        <div>
          <span className="stat-label">Current Balance</span>
          <span className="balance-value" data-testid="balance" title={exactBytes(user.credits)}>
            {formatGb(user.credits)} GB
          </span>
        </div>
        <span className="balance-rate">${centsToUsd(prices.pricing.pricePerGbCents)} per GB</span>
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
  const q = trpc.plans.list.useQuery(undefined, { staleTime: 60_000 });
  if (!q.data?.plans.length) return null;
  return (
    <Card title="Plans" description="A fixed allowance each month or week, for a lower price per GB than pay-as-you-go.">
      <div className="table-wrap">
        <PlansTable plans={q.data.plans} payAsYouGoCents={payAsYouGoCents} action={(p) => <SubscribeButton plan={p} />} />
      </div>
    </Card>
  );
}

/** Subscribing opens the period's invoice, as a crypto top-up does; the subscription starts when it is paid. */
function SubscribeButton({ plan }: { plan: Plan }) {
  const subscribe = trpc.subscriptions.subscribe.useMutation({ onSuccess: (r) => window.location.assign(r.invoiceUrl) });
  return (
    <span className="row-actions">
      <Button variant="secondary" loading={subscribe.isPending} aria-label={`Subscribe to ${plan.name}`} onClick={() => subscribe.mutate({ planId: plan.id })}>
        Subscribe
      </Button>
      {subscribe.error && (
        <span className="field-error" role="alert">
          {errorMessage(subscribe.error, 'Could not subscribe')}
        </span>
      )}
    </span>
  );
}

/** The price list in force (GET /api/pricing), the spec's defaults until it has loaded. */
function usePricing() {
  const q = trpc.credits.pricing.useQuery(undefined, { staleTime: 60_000 });
  const pricing = q.data ?? { ...DEFAULT_PRICING, userPricePerGbCents: null };
  const own = 'userPricePerGbCents' in pricing ? (pricing.userPricePerGbCents ?? null) : null;
  return {
    pricing,
    rate: (gb: number) => ratePerGbCents(pricing, gb, own),
    total: (gb: number) => orderTotalCents(pricing, gb, own),
    minGb: minOrderGb(pricing),
    minMessage: minOrderMessage(pricing),
    smallest: smallestOrderText(pricing, own),
  };
}

/** Back from an underpaid invoice: what the paid part credited and what is still owed. */
function PartialPaymentNotice({ onDismiss }: { onDismiss: () => void }) {
  const orders = trpc.credits.payments.useQuery();
  const partial = orders.data?.find((o) => o.status === 'partially_paid');
  return (
    <Alert kind="info" onDismiss={onDismiss}>
      <span data-testid="partial-payment">
        {partial
          ? `Partially paid: ${formatGb(partial.creditedBytes)} GB credited. $${centsToUsd(Math.max(0, partial.priceCents - (partial.paidCents ?? 0)))} of $${centsToUsd(partial.priceCents)} is still owed; pay it to receive the rest.`
          : 'Partially paid: the part you paid is credited; pay the rest to receive the remainder.'}
      </span>{' '}
      {partial?.invoiceUrl ? (
        <a href={partial.invoiceUrl} data-testid="pay-rest">
          Pay the rest
        </a>
      ) : (
        <Link to="/billing">See the order in Billing</Link>
      )}
    </Alert>
  );
}

/** The bonus a promo code adds to this order, asked of the server as the code is typed. */
function PromoBonus({ code: typed, gbAmount }: { code: string; gbAmount: number }) {
  // Asked once typing pauses, not at every key.
  const [code, setCode] = useState(typed);
  useEffect(() => {
    const t = setTimeout(() => setCode(typed), 400);
    return () => clearTimeout(t);
  }, [typed]);
  const valid = promotionCodeField.safeParse(code).success;
  const preview = trpc.credits.promoPreview.useQuery({ code, gbAmount }, { enabled: valid && code === typed, retry: false });
  if (!code.trim()) return null;
  if (!valid)
    return (
      <p className="field-hint" data-testid="promo-bonus">
        Codes are 4-20 letters or digits
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
      Bonus +{preview.data.bonusPercent}%: you receive {formatGb(preview.data.creditsBytes)} GB for the same price
    </p>
  );
}

/** "Whole GB only: 12.5 becomes 12" for an amount with a fraction (the spec makes it whole); null otherwise. */
function wholeGbNote(raw: string): string | null {
  const n = Number(raw);
  return raw.trim() !== '' && Number.isFinite(n) && !Number.isInteger(n) ? `Whole GB only: ${raw.trim()} becomes ${coerceGbAmount(raw)}` : null;
}

/** A random order key (crypto.randomUUID needs a secure context; getRandomValues does not). */
function newOrderKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

function CryptoTopUp() {
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
  const total = orderError ? null : `$${centsToUsd(totalCents)}`;

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
      setError(errorMessage(err, 'Failed to create payment', 'Network error. Please try again.'));
    }
  }

  return (
    <Card title="Buy with Crypto" description="Pay with 300+ cryptocurrencies. Credits are added once the payment is confirmed.">
      <form className="form" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Buy with crypto">
        <Field
          label="Amount (GB)"
          name="gbAmount"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          value={raw}
          hint={wholeNote ?? `The smallest order is ${prices.smallest}.`}
          error={orderError}
          onChange={(e) => {
            setRaw(e.target.value);
            setWholeNote(wholeGbNote(e.target.value));
            setError(null);
            orderKey.current = null;
          }}
          onBlur={() => setRaw(String(coerceGbAmount(raw)))}
        />
        <Field
          label="Promo code (optional)"
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
            <dt>Rate</dt>
            <dd data-testid="order-rate">${centsToUsd(prices.rate(gbAmount))} / GB</dd>
          </div>
          <div>
            <dt>Amount</dt>
            <dd>{gbAmount.toLocaleString('en-US')} GB</dd>
          </div>
          <div className="price-total">
            <dt>Total</dt>
            <dd data-testid="order-total">{total ?? '—'}</dd>
          </div>
        </dl>
        {prices.pricing.tiers.length > 0 && (
          <table className="table price-tiers" data-testid="price-tiers">
            <thead>
              <tr>
                <th>From</th>
                <th>Price per GB</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>{prices.minGb} GB</td>
                <td>${centsToUsd(prices.pricing.pricePerGbCents)}</td>
              </tr>
              {prices.pricing.tiers.map((t) => (
                <tr key={t.minGb}>
                  <td>{t.minGb} GB</td>
                  <td>${centsToUsd(t.pricePerGbCents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {error && <Alert kind="error">{error}</Alert>}
        <Button type="submit" block disabled={!total} loading={create.isPending || leaving}>
          {total ? `Pay ${total} with Crypto` : 'Pay with Crypto'}
        </Button>
      </form>
    </Card>
  );
}

const redeemResolver = zodResolver(redeemCodeInput);

function RedeemCode({ onRedeemed }: { onRedeemed: () => Promise<void> }) {
  const redeem = trpc.credits.redeem.useMutation();
  const { form, onSubmit, outcome } = useActionForm(
    redeemResolver,
    { code: '' },
    async (input, f) => {
      const r = await redeem.mutateAsync(input);
      f.reset();
      await onRedeemed();
      return withGbBeside(r.message || 'Code redeemed', r.creditedBytes);
    },
    (err) => errorMessage(err, 'Failed to redeem code', 'Failed to redeem code. Please try again.') || 'Code redemption failed',
  );

  return (
    <Card title="Redeem a Code" description="Got a top-up code from our chat bot, a promotion or a giveaway? Redeem it here.">
      <form className="form" onSubmit={onSubmit} noValidate aria-label="Redeem code">
        <FormField
          form={form}
          name="code"
          transform={(v) => v.toUpperCase().slice(0, CODE_MAX_LENGTH)}
          label="Top-up Code"
          className="code-input mono"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={CODE_MAX_LENGTH}
          placeholder="Enter your code"
        />
        {outcome}
        <Button type="submit" block loading={redeem.isPending}>
          Redeem Code
        </Button>
      </form>
    </Card>
  );
}
