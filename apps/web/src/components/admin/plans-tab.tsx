/** The admin's Plans tab: the allowances sold besides pay-as-you-go; create, edit, deactivate, delete. */
import { useState } from 'react';
import { useForm, type Resolver } from 'react-hook-form';
import { centsToUsd, createPlanInput, planPricePerGbCents, type CreatePlanInput, type CreatePlanValues, type Plan } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
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
      setSaved(`Plan ${r.plan.name} ${editing ? 'saved' : 'created'}.`);
      if (!editing) form.reset(EMPTY);
      await utils.admin.plans.invalidate();
      if (editing) onDone();
    } catch (err) {
      form.setError('root', { message: errorMessage(err, 'Saving the plan failed') });
    }
  };
  return (
    <Card
      title={editing ? `Edit ${editing.name}` : 'New plan'}
      description="GB each period for a fixed price, paid as a crypto top-up is. A change applies from the next period of each subscriber."
    >
      <form onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate data-testid="plan-form">
        {errors.root?.message && <Alert kind="error">{errors.root.message}</Alert>}
        {saved && <Alert kind="success">{saved}</Alert>}
        <div className="grid-3">
          <Field label="Name" autoComplete="off" {...field('name')} />
          <Field label="GB per period" inputMode="numeric" {...field('gbPerPeriod')} />
          <Field label="Price ($)" inputMode="decimal" {...field('price')} />
          <SelectField label="Period" {...field('period')}>
            <option value="month">Month</option>
            <option value="week">Week</option>
          </SelectField>
          <SelectField label="Unused GB" {...field('rollover')}>
            <option value="no">Expire at the period's end</option>
            <option value="yes">Roll over once</option>
          </SelectField>
        </div>
        <EditActions editing={!!editing} saving={create.isPending || update.isPending} labels={['Create plan', 'Save plan']} onCancel={onDone} />
      </form>
    </Card>
  );
}

type AdminPlan = RouterOutputs['admin']['plans']['plans'][number];

const COLUMNS: Column<AdminPlan>[] = [
  { head: 'Plan', cell: (p) => p.name },
  { head: 'Allowance', cell: (p) => `${p.gbPerPeriod.toLocaleString('en-US')} GB a ${p.period}` },
  { head: 'Price', num: true, cell: (p) => `$${centsToUsd(p.priceCents)}` },
  { head: 'Per GB', num: true, cell: (p) => `$${centsToUsd(planPricePerGbCents(p))}` },
  { head: 'Unused GB', cell: (p) => (p.rollover ? 'Roll over once' : 'Expire') },
  { head: 'State', cell: (p) => (p.active ? 'Active' : 'Inactive') },
  { head: 'Subscribers', num: true, cell: (p) => p.subscribers.toLocaleString('en-US') },
  { head: 'Revenue this month', num: true, cell: (p) => `$${centsToUsd(p.revenueCentsThisMonth)}` },
];

export function AdminPlans() {
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
        Edit
      </Button>
      <Button
        variant="secondary"
        disabled={update.isPending}
        onClick={() => void act(() => update.mutateAsync({ id: p.id, active: !p.active }), 'Changing the plan failed')}
      >
        {p.active ? 'Deactivate' : 'Activate'}
      </Button>
      <Button variant="secondary" disabled={remove.isPending} onClick={() => void act(() => remove.mutateAsync({ id: p.id }), 'Deleting the plan failed')}>
        Delete
      </Button>
    </div>
  );
  return (
    <>
      <PlanForm key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />
      <Card title="Plans" description="Active plans are listed on the pricing and Top Up pages; an inactive one takes no new subscriptions.">
        {error && <Alert kind="error">{error}</Alert>}
        {list.isLoading ? (
          <Spinner />
        ) : (
          <DataTable
            testId="plans-table"
            columns={[...COLUMNS, { head: '', cell: actions }]}
            rows={list.data?.plans ?? []}
            rowKey={(p) => p.id}
            rowProps={(p) => ({ 'data-plan': p.name })}
            empty="No plans yet"
          />
        )}
      </Card>
    </>
  );
}
