/** The admin's Pricing tab (finance and owners): price per GB, minimum order and volume tiers, as every crypto order is priced. */
import { zodResolver } from '@hookform/resolvers/zod';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useFieldArray, type Resolver } from 'react-hook-form';
import { centsToUsd, minOrderGb, setPricingInput, smallestOrder, usdToCents, type Pricing, type SetPricingInput } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import { FormField, useActionForm } from '../../lib/form';
import { trpc } from '../../trpc';
import { Alert, Button, Card, Spinner } from '../ui';
import { CostWarnings } from './cost-warnings';

/** Prices as typed, in dollars; the schema (and the API) take cents. */
interface FormValues {
  pricePerGbCents: string;
  minOrderCents: string;
  tiers: { minGb: string; pricePerGbCents: string }[];
}

/** Blank is a missing number (the schema's "must be a number"), never 0. */
const num = (s: string) => (s.trim() === '' ? Number.NaN : Number(s));

const resolver: Resolver<FormValues, unknown, SetPricingInput> = (values, context, options) =>
  zodResolver(setPricingInput)(
    {
      pricePerGbCents: usdToCents(values.pricePerGbCents),
      minOrderCents: usdToCents(values.minOrderCents),
      tiers: values.tiers.map((t) => ({ minGb: num(t.minGb), pricePerGbCents: usdToCents(t.pricePerGbCents) })),
    },
    context,
    { ...options, names: undefined },
  );

const valuesOf = (p: Pricing): FormValues => ({
  pricePerGbCents: centsToUsd(p.pricePerGbCents),
  minOrderCents: centsToUsd(p.minOrderCents),
  tiers: p.tiers.map((t) => ({ minGb: String(t.minGb), pricePerGbCents: centsToUsd(t.pricePerGbCents) })),
});

/** Core's smallestOrderText in the language on show: "16 GB for $15.20". */
const smallestOrderWords = (t: TFunction<'admin'>, p: Pricing) => {
  const o = smallestOrder(p);
  return t('pricing.smallestOrder', { gb: fmt.number(o.gb), total: fmt.cents(o.totalCents) });
};

/** Core's minOrderMessage in the language on show: "Minimum order is 12GB ($10)", cents only when there are some. */
const minOrderWords = (t: TFunction<'admin'>, p: Pricing) =>
  t('pricing.minOrder', {
    gb: fmt.number(minOrderGb(p)),
    price: fmt.number(p.minOrderCents / 100, { style: 'currency', currency: 'USD', minimumFractionDigits: p.minOrderCents % 100 === 0 ? 0 : 2 }),
  });

/** What customers see for these prices: the rate, the minimum message, each tier and what the smallest order is charged. */
const summary = (t: TFunction<'admin'>, p: Pricing) =>
  [
    t('pricing.perGb', { price: fmt.cents(p.pricePerGbCents) }),
    minOrderWords(t, p),
    ...p.tiers.map((tier) => t('pricing.tierPrice', { price: fmt.cents(tier.pricePerGbCents), gb: fmt.number(tier.minGb) })),
    t('pricing.smallest', { order: smallestOrderWords(t, p) }),
  ].join(' · ');

function PricingForm({ pricing }: { pricing: Pricing }) {
  const { t } = useTranslation('admin');
  const set = trpc.admin.setPricing.useMutation();
  const utils = trpc.useUtils();
  const { form, onSubmit, outcome } = useActionForm(
    resolver,
    valuesOf(pricing),
    async (input) => {
      const r = await set.mutateAsync(input);
      await utils.credits.pricing.invalidate();
      return t('pricing.saved', { summary: summary(t, r.pricing) });
    },
    (err) => errorMessage(err, t('pricing.saveFailed')),
  );
  const tiers = useFieldArray({ control: form.control, name: 'tiers' });
  return (
    <form onSubmit={onSubmit} noValidate data-testid="pricing-form">
      {outcome}
      <div className="grid-2">
        <FormField form={form} name="pricePerGbCents" label={t('pricing.pricePerGb')} inputMode="decimal" />
        <FormField
          form={form}
          name="minOrderCents"
          label={t('pricing.minOrderField')}
          inputMode="decimal"
          hint={t('pricing.smallestToday', { order: smallestOrderWords(t, pricing) })}
        />
      </div>
      <fieldset>
        <legend>{t('pricing.tiers')}</legend>
        <p className="muted small">{t('pricing.tiersHint')}</p>
        {tiers.fields.map((tier, i) => (
          <div className="grid-3" key={tier.id} data-testid="pricing-tier">
            <FormField form={form} name={`tiers.${i}.minGb`} label={t('pricing.tierFrom', { n: i + 1 })} inputMode="numeric" />
            <FormField form={form} name={`tiers.${i}.pricePerGbCents`} label={t('pricing.tierPrice2', { n: i + 1 })} inputMode="decimal" />
            <Button variant="secondary" onClick={() => tiers.remove(i)} aria-label={t('pricing.removeTier', { n: i + 1 })}>
              {t('pricing.remove')}
            </Button>
          </div>
        ))}
        <Button variant="secondary" onClick={() => tiers.append({ minGb: '', pricePerGbCents: '' })}>
          {t('pricing.addTier')}
        </Button>
      </fieldset>
      <Button type="submit" loading={set.isPending}>
        {t('pricing.save')}
      </Button>
    </form>
  );
}

export function AdminPricing() {
  const { t } = useTranslation('admin');
  // Another admin may have changed them: read afresh each time the tab opens.
  const q = trpc.credits.pricing.useQuery(undefined, { refetchOnMount: 'always', staleTime: 0 });
  return (
    <Card title={t('pricing.title')} description={t('pricing.description')}>
      {q.isError && <Alert kind="error">{errorMessage(q.error, t('pricing.loadFailed'))}</Alert>}
      <CostWarnings />
      {q.data ? (
        <>
          <p className="muted small" data-testid="pricing-in-force">
            {t('pricing.inForce', { summary: summary(t, q.data) })}
          </p>
          <PricingForm pricing={q.data} />
        </>
      ) : (
        !q.isError && <Spinner label={t('pricing.loading')} />
      )}
    </Card>
  );
}
