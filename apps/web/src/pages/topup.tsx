import { useEffect, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  CODE_MAX_LENGTH,
  DEFAULT_ORDER_GB,
  MIN_ORDER_GB,
  MIN_ORDER_MESSAGE,
  PRICE_PER_GB_CENTS,
  centsToUsd,
  coerceGbAmount,
  cryptoPaymentInput,
  formatGb,
  orderPriceCents,
  redeemCodeInput,
  withGbBeside,
} from '@proxyhub/core';
import { Alert, Button, Card, Field, PageHeader } from '../components/ui';
import { errorMessage } from '../lib/errors';
import { FormField, useActionForm } from '../lib/form';
import { useSession, useSessionActions } from '../session';
import { trpc } from '../trpc';

export function TopUpPage() {
  const user = useSession().data!;
  const { refresh } = useSessionActions();
  const [params, setParams] = useSearchParams();
  const payment = params.get('payment');

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
      {payment && payment !== 'finished' && payment !== 'failed' && (
        <Alert kind="info" onDismiss={() => setParams({}, { replace: true })}>
          Your payment is being processed. Credits are added as soon as it is confirmed.
        </Alert>
      )}
      <div className="balance-banner">
        <div>
          <span className="stat-label">Current Balance</span>
          <span className="balance-value" data-testid="balance">
            {formatGb(user.credits)} GB
          </span>
        </div>
        <span className="balance-rate">$0.90 per GB</span>
      </div>
      <div className="grid-2">
        <CryptoTopUp />
        <RedeemCode onRedeemed={refresh} />
      </div>
    </>
  );
}

function CryptoTopUp() {
  const [raw, setRaw] = useState(String(DEFAULT_ORDER_GB));
  const [error, setError] = useState<string | null>(null);
  const create = trpc.credits.createCryptoPayment.useMutation();
  const gbAmount = coerceGbAmount(raw);
  const totalCents = orderPriceCents(gbAmount);
  // The order the server would accept, checked by the same schema: an amount it would refuse shows
  // the reason and no price (below 12 GB the spec's message; the $10 floor never applies to an order).
  const check = cryptoPaymentInput.safeParse({ gbAmount, priceUsd: totalCents / 100 });
  const orderError = check.success ? undefined : (check.error.issues[0]?.message ?? MIN_ORDER_MESSAGE);
  const total = check.success ? `$${centsToUsd(totalCents)}` : null;

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (!check.success) return setError(orderError ?? MIN_ORDER_MESSAGE);
    try {
      const r = await create.mutateAsync(check.data);
      window.location.assign(r.invoiceUrl);
    } catch (err) {
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
          hint={`The smallest order is ${MIN_ORDER_GB} GB, for $${centsToUsd(orderPriceCents(MIN_ORDER_GB))}.`}
          error={orderError}
          onChange={(e) => {
            setRaw(e.target.value);
            setError(null);
          }}
          onBlur={() => setRaw(String(coerceGbAmount(raw)))}
        />
        <dl className="price-table">
          <div>
            <dt>Rate</dt>
            <dd>${centsToUsd(PRICE_PER_GB_CENTS)} / GB</dd>
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
        {error && <Alert kind="error">{error}</Alert>}
        <Button type="submit" block disabled={!total} loading={create.isPending}>
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
