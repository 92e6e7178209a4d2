/** The admin's Pricing tab (finance and owners): price per GB, minimum order and volume tiers, as every crypto order is priced. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useFieldArray, type Resolver } from 'react-hook-form';
import { centsToUsd, minOrderMessage, setPricingInput, smallestOrderText, usdToCents, type Pricing, type SetPricingInput } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
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

/** What customers see for these prices: the rate, the minimum message, each tier and what the smallest order is charged. */
const summary = (p: Pricing) =>
  [
    `$${centsToUsd(p.pricePerGbCents)} per GB`,
    minOrderMessage(p),
    ...p.tiers.map((t) => `$${centsToUsd(t.pricePerGbCents)} per GB from ${t.minGb} GB`),
    `smallest order ${smallestOrderText(p)}`,
  ].join(' · ');

function PricingForm({ pricing }: { pricing: Pricing }) {
  const set = trpc.admin.setPricing.useMutation();
  const utils = trpc.useUtils();
  const { form, onSubmit, outcome } = useActionForm(
    resolver,
    valuesOf(pricing),
    async (input) => {
      const r = await set.mutateAsync(input);
      await utils.credits.pricing.invalidate();
      return `Prices saved: ${summary(r.pricing)}.`;
    },
    (err) => errorMessage(err, 'Saving the prices failed'),
  );
  const tiers = useFieldArray({ control: form.control, name: 'tiers' });
  return (
    <form onSubmit={onSubmit} noValidate data-testid="pricing-form">
      {outcome}
      <div className="grid-2">
        <FormField form={form} name="pricePerGbCents" label="Price per GB ($)" inputMode="decimal" />
        <FormField
          form={form}
          name="minOrderCents"
          label="Minimum order ($)"
          inputMode="decimal"
          hint={`The smallest order today: ${smallestOrderText(pricing)}`}
        />
      </div>
      <fieldset>
        <legend>Volume tiers</legend>
        <p className="muted small">From a number of GB, a lower price per GB: ascending in GB, each cheaper than the one before.</p>
        {tiers.fields.map((t, i) => (
          <div className="grid-3" key={t.id} data-testid="pricing-tier">
            <FormField form={form} name={`tiers.${i}.minGb`} label={`Tier ${i + 1}: from (GB)`} inputMode="numeric" />
            <FormField form={form} name={`tiers.${i}.pricePerGbCents`} label={`Tier ${i + 1}: price per GB ($)`} inputMode="decimal" />
            <Button variant="secondary" onClick={() => tiers.remove(i)} aria-label={`Remove tier ${i + 1}`}>
              Remove
            </Button>
          </div>
        ))}
        <Button variant="secondary" onClick={() => tiers.append({ minGb: '', pricePerGbCents: '' })}>
          Add tier
        </Button>
      </fieldset>
      <Button type="submit" loading={set.isPending}>
        Save prices
      </Button>
    </form>
  );
}

export function AdminPricing() {
  // Another admin may have changed them: read afresh each time the tab opens.
  const q = trpc.credits.pricing.useQuery(undefined, { refetchOnMount: 'always', staleTime: 0 });
  return (
    <Card
      title="Pricing"
      description="Every crypto order is priced from these (the order's tier, or the user's own price where lower). Customers see them on the landing and Top Up pages."
    >
      {q.isError && <Alert kind="error">{errorMessage(q.error, 'Failed to load the prices')}</Alert>}
      <CostWarnings />
      {q.data ? (
        <>
          <p className="muted small" data-testid="pricing-in-force">
            In force: {summary(q.data)}
          </p>
          <PricingForm pricing={q.data} />
        </>
      ) : (
        !q.isError && <Spinner label="Loading prices..." />
      )}
    </Card>
  );
}
