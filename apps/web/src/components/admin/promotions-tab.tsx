/** The admin's Promotions tab: create a multi-use code (credit or top-up bonus), see its uses, stop it. */
import { zodResolver } from '@hookform/resolvers/zod';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useState } from 'react';
import { useForm, type Resolver } from 'react-hook-form';
import { createPromotionInput, type CreatePromotionInput, type CreatePromotionValues } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, type Column } from '../data-table';
import { Alert, Button, Card, Field, SelectField, Spinner } from '../ui';
import { gbAmount } from './words';

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
  const { t } = useTranslation('admin');
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
      form.setError('root', { message: errorMessage(err, t('promotions.createFailed')) });
    }
  };
  return (
    <Card title={t('promotions.newTitle')} description={t('promotions.newDescription')}>
      <form onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate data-testid="promotion-form">
        {errors.root?.message && <Alert kind="error">{errors.root.message}</Alert>}
        {made && <Alert kind="success">{t('promotions.created', { code: made })}</Alert>}
        <div className="grid-3">
          <Field label={t('promotions.code')} autoComplete="off" className="mono" {...field('code')} />
          <SelectField label={t('promotions.kind')} {...field('kind')}>
            <option value="credit">{t('promotions.kindCredit')}</option>
            <option value="bonus">{t('promotions.kindBonus')}</option>
          </SelectField>
          {kind === 'credit' ? (
            <Field label={t('promotions.credits')} inputMode="decimal" {...field('creditsGB')} />
          ) : (
            <Field label={t('promotions.bonus')} inputMode="numeric" {...field('bonusPercent')} />
          )}
          <Field label={t('promotions.maxRedemptions')} inputMode="numeric" {...field('maxRedemptions')} />
          <Field label={t('promotions.maxPerUser')} inputMode="numeric" {...field('maxPerUser')} />
          <SelectField label={t('promotions.firstPurchaseOnly')} {...field('firstPurchaseOnly')}>
            <option value="no">{t('promotions.no')}</option>
            <option value="yes">{t('promotions.yes')}</option>
          </SelectField>
          <Field label={t('promotions.expires')} type="datetime-local" hint={t('promotions.expiresHint')} {...field('expiresAt')} />
          <Field label={t('promotions.campaign')} autoComplete="off" hint={t('promotions.campaignHint')} {...field('campaign')} />
        </div>
        <Button type="submit" loading={create.isPending}>
          {t('promotions.create')}
        </Button>
      </form>
    </Card>
  );
}

function what(t: TFunction<'admin'>, p: Promotion) {
  return p.kind === 'credit' ? gbAmount(p.creditsGB ?? 0) : t('promotions.bonusOnTopUps', { percent: fmt.number(p.bonusPercent ?? 0) });
}

const columns = (t: TFunction<'admin'>): Column<Promotion>[] => [
  { head: t('promotions.code'), className: 'mono', cell: (p) => p.code },
  { head: t('promotions.gives'), cell: (p) => `${what(t, p)}${p.firstPurchaseOnly ? t('promotions.firstPurchase') : ''}` },
  {
    head: t('promotions.usedHead'),
    cell: (p) => t('promotions.used', { used: fmt.number(p.redemptions), max: fmt.number(p.maxRedemptions), perUser: fmt.number(p.maxPerUser) }),
  },
  { head: t('promotions.credited'), cell: (p) => fmt.gb(p.creditedBytes) },
  { head: t('promotions.revenue'), cell: (p) => (p.revenueCents === undefined ? '—' : fmt.cents(p.revenueCents)) },
  { head: t('promotions.campaign'), cell: (p) => p.campaign ?? '' },
  {
    head: t('promotions.state'),
    cell: (p) =>
      !p.enabled ? t('promotions.stopped') : p.expiresAt && new Date(p.expiresAt).getTime() <= Date.now() ? t('promotions.expired') : t('promotions.active'),
  },
];

export function AdminPromotions() {
  const { t } = useTranslation('admin');
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
      setError(errorMessage(err, t('promotions.changeFailed')));
    }
  }
  const toggleCell = (p: Promotion) => (
    <Button variant="secondary" onClick={() => void setEnabled(p.code, !p.enabled)} disabled={update.isPending}>
      {p.enabled ? t('promotions.stop') : t('promotions.restart')}
    </Button>
  );
  return (
    <>
      <PromotionForm />
      <Card title={t('promotions.title')}>
        {error && <Alert kind="error">{error}</Alert>}
        {list.isLoading ? (
          <Spinner />
        ) : (
          <DataTable
            testId="promotions-table"
            columns={[...columns(t), { head: '', cell: toggleCell }]}
            rows={list.data?.promotions ?? []}
            rowKey={(p) => p.code}
            rowProps={(p) => ({ 'data-testid': `promotion-${p.code}` })}
            empty={t('promotions.empty')}
          />
        )}
      </Card>
    </>
  );
}
