/**
 * Settings card: gift codes made from one's own balance. The form validates with the procedure's
 * own core schema (its messages under the field); the list shows each gift with a Cancel for the
 * unredeemed ones, which gives their data back.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm, type Resolver } from 'react-hook-form';
import { giftCodeInput, type GiftCodeInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { useSessionActions, type RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Card, CopyButton, Field } from './ui';

type FormValues = { creditsGB: string };

/** The typed amount as the schema's number; empty stays missing, so the message asks for a number. */
const giftResolver: Resolver<FormValues, unknown, GiftCodeInput> = (values, context, options) => {
  const input = { creditsGB: values.creditsGB.trim() === '' ? undefined : Number(values.creditsGB) } as unknown as GiftCodeInput;
  return zodResolver(giftCodeInput)(input, context, { ...options, names: undefined });
};

const STATUS_LABEL = { open: 'Not redeemed', redeemed: 'Redeemed', cancelled: 'Cancelled' } as const;

type Gift = RouterOutputs['gifts']['list'][number];
const COLUMNS: Column<Gift>[] = [
  { head: 'Code', cell: (g) => <code>{g.code}</code> },
  { head: 'GB', num: true, cell: (g) => g.creditsGB },
  { head: 'Created', cell: (g) => new Date(g.createdAt).toLocaleString() },
  { head: 'Status', cell: (g) => STATUS_LABEL[g.status] },
];

export function GiftCodeSettings() {
  const list = trpc.gifts.list.useQuery(undefined, { staleTime: 0 });
  const create = trpc.gifts.create.useMutation();
  const cancel = trpc.gifts.cancel.useMutation();
  const { refresh } = useSessionActions();
  const [made, setMade] = useState<{ code: string; gb: string } | null>(null);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const form = useForm<FormValues, unknown, GiftCodeInput>({ resolver: giftResolver, defaultValues: { creditsGB: '' }, mode: 'onSubmit' });
  const errors = form.formState.errors;

  const onValid = async (data: GiftCodeInput) => {
    setNotice(null);
    try {
      const r = await create.mutateAsync(data);
      setMade({ code: r.code, gb: String(data.creditsGB) });
      form.reset({ creditsGB: '' });
      await Promise.all([list.refetch(), refresh()]);
    } catch (err) {
      setMade(null);
      form.setError('creditsGB', { message: errorMessage(err, 'Making the gift code failed') });
    }
  };

  async function onCancel(code: string) {
    setNotice(null);
    try {
      await cancel.mutateAsync({ code });
      if (made?.code === code) setMade(null);
      setNotice({ kind: 'success', text: `Gift code ${code} cancelled: its data is back in your balance.` });
      await Promise.all([list.refetch(), refresh()]);
    } catch (err) {
      setNotice({ kind: 'error', text: errorMessage(err, 'Cancelling the gift code failed') });
      await list.refetch();
    }
  }

  const gifts = list.data ?? [];
  const cancelCell = (g: Gift) =>
    g.status === 'open' && (
      <Button variant="secondary" onClick={() => void onCancel(g.code)} loading={cancel.isPending && cancel.variables.code === g.code}>
        Cancel
      </Button>
    );
  return (
    <Card
      title="Gift Codes"
      description="Give some of your data to someone else: the amount leaves your balance now and they redeem the code on their Top Up page. Cancel an unredeemed code to get it back."
    >
      <form className="form inline-form" onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate aria-label="Gift code">
        <Field
          label="Gift amount (GB)"
          inputMode="decimal"
          autoComplete="off"
          placeholder="e.g. 1.5"
          error={errors.creditsGB?.message}
          {...form.register('creditsGB', { onChange: () => form.clearErrors('creditsGB') })}
        />
        <Button type="submit" loading={create.isPending}>
          Make Gift Code
        </Button>
      </form>
      {made && (
        <Alert kind="success" onDismiss={() => setMade(null)}>
          <span data-testid="gift-made">
            Gift code <strong data-testid="gift-made-code">{made.code}</strong> for {made.gb} GB is ready. Send it to the person it is for.
          </span>{' '}
          <CopyButton text={made.code} label="Copy code" />
        </Alert>
      )}
      {notice && (
        <Alert kind={notice.kind} onDismiss={() => setNotice(null)}>
          {notice.text}
        </Alert>
      )}
      {gifts.length > 0 && (
        <DataTable
          label="Your gift codes"
          columns={[...COLUMNS, { head: <span className="sr-only">Actions</span>, cell: cancelCell }]}
          rows={gifts}
          rowKey={(g) => g.code}
          rowProps={() => ({ 'data-testid': 'gift-row' })}
          empty={null}
        />
      )}
    </Card>
  );
}
