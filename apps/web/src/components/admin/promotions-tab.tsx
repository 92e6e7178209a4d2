/** The admin's Promotions tab: create a multi-use code (credit or top-up bonus), see its uses, stop it. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm, type Resolver } from 'react-hook-form';
import { centsToUsd, createPromotionInput, formatGb, type CreatePromotionInput, type CreatePromotionValues } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, type Column } from '../data-table';
import { Alert, Button, Card, Field, SelectField, Spinner } from '../ui';

type Promotion = RouterOutputs['admin']['promotions']['promotions'][number];
type Parsed = CreatePromotionValues;

interface FormValues {
  code: string;
  kind: 'credit' | 'bonus';
  creditsGB: string;
  bonusPercent: string;
  maxRedemptions: string;
  maxPerUser: string;
  firstPurchaseOnly: 'no' | 'yes';
  expiresAt: string;
  campaign: string;
}

const EMPTY: FormValues = {
  code: '',
  kind: 'credit',
  creditsGB: '1',
  bonusPercent: '20',
  maxRedemptions: '50',
  maxPerUser: '1',
  firstPurchaseOnly: 'no',
  expiresAt: '',
  campaign: '',
};

const num = (s: string) => (s.trim() === '' ? undefined : Number(s));

/** The form's text as the procedure's input, checked by the procedure's own schema. */
const inputOf = (v: FormValues): CreatePromotionInput => ({
  code: v.code,
  kind: v.kind,
  ...(v.kind === 'credit' ? { creditsGB: num(v.creditsGB) } : { bonusPercent: num(v.bonusPercent) }),
  maxRedemptions: num(v.maxRedemptions) ?? NaN,
  maxPerUser: num(v.maxPerUser) ?? 1,
  firstPurchaseOnly: v.firstPurchaseOnly === 'yes',
  expiresAt: v.expiresAt ? new Date(v.expiresAt) : null,
  campaign: v.campaign || null,
});

const resolver: Resolver<FormValues, unknown, Parsed> = (values, context, options) =>
  zodResolver(createPromotionInput)(inputOf(values), context, { ...options, names: undefined });

function PromotionForm() {
  const form = useForm<FormValues, unknown, Parsed>({ resolver, defaultValues: EMPTY, mode: 'onSubmit', reValidateMode: 'onSubmit' });
  const create = trpc.admin.createPromotion.useMutation();
  const utils = trpc.useUtils();
  const [made, setMade] = useState<string | null>(null);
  const errors = form.formState.errors;
  const field = (name: keyof FormValues) => ({ ...form.register(name, { onChange: () => form.clearErrors(name) }), error: errors[name]?.message });
  const kind = form.watch('kind');
  const onValid = async (data: Parsed) => {
    setMade(null);
    try {
      const r = await create.mutateAsync(data);
      setMade(r.promotion.code);
      form.reset(EMPTY);
      await utils.admin.promotions.invalidate();
    } catch (err) {
      form.setError('root', { message: errorMessage(err, 'Creating the promotion failed') });
    }
  };
  return (
    <Card title="New promotion" description="A credit promotion is redeemed like a top-up code; a bonus one adds a percentage to a crypto top-up.">
      <form onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate data-testid="promotion-form">
        {errors.root?.message && <Alert kind="error">{errors.root.message}</Alert>}
        {made && <Alert kind="success">Promotion {made} created.</Alert>}
        <div className="grid-3">
          <Field label="Code" autoComplete="off" className="mono" {...field('code')} />
          <SelectField label="Kind" {...field('kind')}>
            <option value="credit">Credit (GB on redeem)</option>
            <option value="bonus">Bonus (% on a crypto top-up)</option>
          </SelectField>
          {kind === 'credit' ? (
            <Field label="Credits (GB)" inputMode="decimal" {...field('creditsGB')} />
          ) : (
            <Field label="Bonus (%)" inputMode="numeric" {...field('bonusPercent')} />
          )}
          <Field label="Max redemptions" inputMode="numeric" {...field('maxRedemptions')} />
          <Field label="Max per user" inputMode="numeric" {...field('maxPerUser')} />
          <SelectField label="First purchase only" {...field('firstPurchaseOnly')}>
            <option value="no">No</option>
            <option value="yes">Yes</option>
          </SelectField>
          <Field label="Expires" type="datetime-local" hint="Empty: never" {...field('expiresAt')} />
          <Field label="Campaign" autoComplete="off" hint="Optional, up to 40 characters" {...field('campaign')} />
        </div>
        <Button type="submit" loading={create.isPending}>
          Create promotion
        </Button>
      </form>
    </Card>
  );
}

function what(p: Promotion) {
  return p.kind === 'credit' ? `${p.creditsGB} GB` : `+${p.bonusPercent}% on top-ups`;
}

const COLUMNS: Column<Promotion>[] = [
  { head: 'Code', className: 'mono', cell: (p) => p.code },
  { head: 'Gives', cell: (p) => `${what(p)}${p.firstPurchaseOnly ? ' · first purchase' : ''}` },
  { head: 'Used', cell: (p) => `${p.redemptions} / ${p.maxRedemptions} (${p.maxPerUser} per user)` },
  { head: 'Credited', cell: (p) => `${formatGb(p.creditedBytes)} GB` },
  { head: 'Revenue', cell: (p) => (p.revenueCents === undefined ? '—' : `$${centsToUsd(p.revenueCents)}`) },
  { head: 'Campaign', cell: (p) => p.campaign ?? '' },
  { head: 'State', cell: (p) => (!p.enabled ? 'Stopped' : p.expiresAt && new Date(p.expiresAt).getTime() <= Date.now() ? 'Expired' : 'Active') },
];

export function AdminPromotions() {
  // Uses change while the admin looks elsewhere: read afresh each time the tab opens.
  const list = trpc.admin.promotions.useQuery(undefined, { refetchOnMount: 'always' });
  const update = trpc.admin.updatePromotion.useMutation();
  const utils = trpc.useUtils();
  const [error, setError] = useState<string | null>(null);
  async function setEnabled(code: string, enabled: boolean) {
    setError(null);
    try {
      await update.mutateAsync({ code, enabled });
      await utils.admin.promotions.invalidate();
    } catch (err) {
      setError(errorMessage(err, 'Changing the promotion failed'));
    }
  }
  const toggleCell = (p: Promotion) => (
    <Button variant="secondary" onClick={() => void setEnabled(p.code, !p.enabled)} disabled={update.isPending}>
      {p.enabled ? 'Stop' : 'Restart'}
    </Button>
  );
  return (
    <>
      <PromotionForm />
      <Card title="Promotions">
        {error && <Alert kind="error">{error}</Alert>}
        {list.isLoading ? (
          <Spinner />
        ) : (
          <DataTable
            testId="promotions-table"
            columns={[...COLUMNS, { head: '', cell: toggleCell }]}
            rows={list.data?.promotions ?? []}
            rowKey={(p) => p.code}
            rowProps={(p) => ({ 'data-testid': `promotion-${p.code}` })}
            empty="No promotions yet"
          />
        )}
      </Card>
    </>
  );
}
