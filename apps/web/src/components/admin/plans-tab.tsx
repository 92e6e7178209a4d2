/** The admin's Plans tab: the allowances sold besides pay-as-you-go; create, edit, deactivate, delete. */
import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useForm, type Resolver } from 'react-hook-form';
import { centsToUsd, createPlanInput, planPricePerGbCents, type CreatePlanInput, type CreatePlanValues, type Plan } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import { issueMessages } from '../../lib/form';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, type Column } from '../data-table';
import { Alert, Button, Card, EditActions, Field, SelectField, Spinner } from '../ui';

interface FormValues {
  name: string;
  gbPerPeriod: string;
  price: string;
  period: 'month' | 'week';
  rollover: 'no' | 'yes';
}

const EMPTY: FormValues = { name: '', gbPerPeriod: '50', price: '35.00', period: 'month', rollover: 'no' };

/** Dollars as typed ("35", "35.5") in whole cents; NaN for anything else, which the schema names. */
const cents = (s: string) => (/^\s*\d+(\.\d{1,2})?\s*$/.test(s) ? Math.round(Number(s) * 100) : NaN);

/** The form's text as the procedure's input, checked by the procedure's own schema. */
const inputOf = (v: FormValues): CreatePlanInput => ({
  name: v.name,
  gbPerPeriod: v.gbPerPeriod.trim() === '' ? NaN : Number(v.gbPerPeriod),
  priceCents: cents(v.price),
  period: v.period,
  rollover: v.rollover === 'yes',
});
const formOf = (p: Plan): FormValues => ({
  name: p.name,
  gbPerPeriod: String(p.gbPerPeriod),
  price: centsToUsd(p.priceCents),
  period: p.period,
  rollover: p.rollover ? 'yes' : 'no',
});

/** The schema's check of the form's input; its price message lands under the dollars field. */
const resolver: Resolver<FormValues, unknown, CreatePlanValues> = (values) => {
  const r = createPlanInput.safeParse(inputOf(values));
  if (r.success) return { values: r.data, errors: {} };
  const issues = r.error.issues.map((i) => (i.path[0] === 'priceCents' ? { ...i, path: ['price'] } : i));
  return { values: {}, errors: issueMessages(issues, ['name', 'gbPerPeriod', 'price', 'period', 'rollover'] as const) };
};

/** The new-plan form, or the edit form of one plan (`editing`). */
function PlanForm({ editing, onDone }: { editing: Plan | null; onDone: () => void }) {
  const { t } = useTranslation('admin');
  const form = useForm<FormValues, unknown, CreatePlanValues>({ resolver, defaultValues: editing ? formOf(editing) : EMPTY, mode: 'onSubmit' });
  const create = trpc.admin.createPlan.useMutation();
  const update = trpc.admin.updatePlan.useMutation();
  const utils = trpc.useUtils();
  const [saved, setSaved] = useState<string | null>(null);
  const errors = form.formState.errors;
  const field = (name: keyof FormValues) => ({ ...form.register(name, { onChange: () => form.clearErrors(name) }), error: errors[name]?.message });
  const onValid = async (data: CreatePlanValues) => {
    setSaved(null);
    try {
      const { active: _keep, ...changes } = data;
      const r = editing ? await update.mutateAsync({ id: editing.id, ...changes }) : await create.mutateAsync(data);
      setSaved(t(editing ? 'plans.saved' : 'plans.created', { name: r.plan.name }));
      if (!editing) form.reset(EMPTY);
      await utils.admin.plans.invalidate();
      if (editing) onDone();
    } catch (err) {
      form.setError('root', { message: errorMessage(err, t('plans.saveFailed')) });
    }
  };
  return (
    <Card title={editing ? t('plans.editTitle', { name: editing.name }) : t('plans.newTitle')} description={t('plans.formDescription')}>
      <form onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate data-testid="plan-form">
        {errors.root?.message && <Alert kind="error">{errors.root.message}</Alert>}
        {saved && <Alert kind="success">{saved}</Alert>}
        <div className="grid-3">
          <Field label={t('plans.name')} autoComplete="off" {...field('name')} />
          <Field label={t('plans.gbPerPeriod')} inputMode="numeric" {...field('gbPerPeriod')} />
          <Field label={t('plans.price')} inputMode="decimal" {...field('price')} />
          <SelectField label={t('plans.period')} {...field('period')}>
            <option value="month">{t('plans.month')}</option>
            <option value="week">{t('plans.week')}</option>
          </SelectField>
          <SelectField label={t('plans.unusedGb')} {...field('rollover')}>
            <option value="no">{t('plans.expireAtEnd')}</option>
            <option value="yes">{t('plans.rollOverOnce')}</option>
          </SelectField>
        </div>
        <EditActions editing={!!editing} saving={create.isPending || update.isPending} labels={[t('plans.create'), t('plans.save')]} onCancel={onDone} />
      </form>
    </Card>
  );
}

type AdminPlan = RouterOutputs['admin']['plans']['plans'][number];

const columns = (t: TFunction<'admin'>): Column<AdminPlan>[] => [
  { head: t('plans.plan'), cell: (p) => p.name },
  {
    head: t('plans.allowance'),
    cell: (p) => t(p.period === 'week' ? 'plans.allowanceWeek' : 'plans.allowanceMonth', { gb: fmt.number(p.gbPerPeriod) }),
  },
  { head: t('plans.priceHead'), num: true, cell: (p) => fmt.cents(p.priceCents) },
  { head: t('plans.perGb'), num: true, cell: (p) => fmt.cents(planPricePerGbCents(p)) },
  { head: t('plans.unusedGb'), cell: (p) => (p.rollover ? t('plans.rollOverOnce') : t('plans.expire')) },
  { head: t('plans.state'), cell: (p) => (p.active ? t('plans.active') : t('plans.inactive')) },
  { head: t('plans.subscribers'), num: true, cell: (p) => fmt.number(p.subscribers) },
  { head: t('plans.revenueThisMonth'), num: true, cell: (p) => fmt.cents(p.revenueCentsThisMonth) },
];

export function AdminPlans() {
  const { t } = useTranslation('admin');
  const list = trpc.admin.plans.useQuery(undefined, { refetchOnMount: 'always' });
  const update = trpc.admin.updatePlan.useMutation();
  const remove = trpc.admin.deletePlan.useMutation();
  const utils = trpc.useUtils();
  const [editing, setEditing] = useState<Plan | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function act(run: () => Promise<unknown>, failed: string) {
    setError(null);
    try {
      await run();
      await utils.admin.plans.invalidate();
    } catch (err) {
      setError(errorMessage(err, failed));
    }
  }
  const actions = (p: AdminPlan) => (
    <div style={{ display: 'flex', gap: 6 }}>
      <Button variant="secondary" onClick={() => setEditing(p)}>
        {t('plans.edit')}
      </Button>
      <Button
        variant="secondary"
        disabled={update.isPending}
        onClick={() => void act(() => update.mutateAsync({ id: p.id, active: !p.active }), t('plans.changeFailed'))}
      >
        {p.active ? t('plans.deactivate') : t('plans.activate')}
      </Button>
      <Button variant="secondary" disabled={remove.isPending} onClick={() => void act(() => remove.mutateAsync({ id: p.id }), t('plans.deleteFailed'))}>
        {t('plans.delete')}
      </Button>
    </div>
  );
  return (
    <>
      <PlanForm key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />
      <Card title={t('plans.title')} description={t('plans.description')}>
        {error && <Alert kind="error">{error}</Alert>}
        {list.isLoading ? (
          <Spinner />
        ) : (
          <DataTable
            testId="plans-table"
            columns={[...columns(t), { head: '', cell: actions }]}
            rows={list.data?.plans ?? []}
            rowKey={(p) => p.id}
            rowProps={(p) => ({ 'data-plan': p.name })}
            empty={t('plans.empty')}
          />
        )}
      </Card>
    </>
  );
}
