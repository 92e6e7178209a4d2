/**
 * Settings card: gift codes made from one's own balance. The form validates with the procedure's
 * own core schema (its messages under the field); the list shows each gift with a Cancel for the
 * unredeemed ones, which gives their data back.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm, type Resolver } from 'react-hook-form';
import { Trans, useTranslation } from 'react-i18next';
import { giftCodeInput, type GiftCodeInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
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

type Gift = RouterOutputs['gifts']['list'][number];

export function GiftCodeSettings() {
  const { t } = useTranslation('settings');
  const columns: Column<Gift>[] = [
    { head: t('gifts.code'), cell: (g) => <code>{g.code}</code> },
    { head: t('gifts.gb'), num: true, cell: (g) => fmt.number(Number(g.creditsGB), { minimumFractionDigits: 2, maximumFractionDigits: 2 }) },
    { head: t('words.created'), cell: (g) => fmt.dateTime(g.createdAt) },
    { head: t('words.status'), cell: (g) => t(`gifts.status.${g.status}`) },
  ];
  const list = trpc.gifts.list.useQuery(undefined, { staleTime: 0 });
  const create = trpc.gifts.create.useMutation();
  const cancel = trpc.gifts.cancel.useMutation();
  const { refresh } = useSessionActions();
  const [made, setMade] = useState<{ code: string; gb: number } | null>(null);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const form = useForm<FormValues, unknown, GiftCodeInput>({ resolver: giftResolver, defaultValues: { creditsGB: '' }, mode: 'onSubmit' });
  const errors = form.formState.errors;

  const onValid = async (data: GiftCodeInput) => {
    setNotice(null);
    try {
      const r = await create.mutateAsync(data);
      setMade({ code: r.code, gb: data.creditsGB });
      form.reset({ creditsGB: '' });
      await Promise.all([list.refetch(), refresh()]);
    } catch (err) {
      setMade(null);
      form.setError('creditsGB', { message: errorMessage(err, t('gifts.makeFailed')) });
    }
  };

  async function onCancel(code: string) {
    setNotice(null);
    try {
      await cancel.mutateAsync({ code });
      if (made?.code === code) setMade(null);
      setNotice({ kind: 'success', text: t('gifts.cancelled', { code }) });
      await Promise.all([list.refetch(), refresh()]);
    } catch (err) {
      setNotice({ kind: 'error', text: errorMessage(err, t('gifts.cancelFailed')) });
      await list.refetch();
    }
  }

  const gifts = list.data ?? [];
  const cancelCell = (g: Gift) =>
    g.status === 'open' && (
      <Button variant="secondary" onClick={() => void onCancel(g.code)} loading={cancel.isPending && cancel.variables.code === g.code}>
        {t('words.cancel')}
      </Button>
    );
  return (
    <Card title={t('gifts.title')} description={t('gifts.description')}>
      <form className="form inline-form" onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate aria-label={t('gifts.formLabel')}>
        <Field
          label={t('gifts.amount')}
          inputMode="decimal"
          autoComplete="off"
          placeholder={t('gifts.placeholder')}
          error={errors.creditsGB?.message}
          {...form.register('creditsGB', { onChange: () => form.clearErrors('creditsGB') })}
        />
        <Button type="submit" loading={create.isPending}>
          {t('gifts.submit')}
        </Button>
      </form>
      {made && (
        <Alert kind="success" onDismiss={() => setMade(null)}>
          <span data-testid="gift-made">
            <Trans
              t={t}
              i18nKey="gifts.made"
              values={{ code: made.code, gb: fmt.number(made.gb) }}
              components={{ code: <strong data-testid="gift-made-code" /> }}
            />
          </span>{' '}
          <CopyButton text={made.code} label={t('gifts.copy')} />
        </Alert>
      )}
      {notice && (
        <Alert kind={notice.kind} onDismiss={() => setNotice(null)}>
          {notice.text}
        </Alert>
      )}
      {gifts.length > 0 && (
        <DataTable
          label={t('gifts.listLabel')}
          columns={[...columns, { head: <span className="sr-only">{t('words.actions')}</span>, cell: cancelCell }]}
          rows={gifts}
          rowKey={(g) => g.code}
          rowProps={() => ({ 'data-testid': 'gift-row' })}
          empty={null}
        />
      )}
    </Card>
  );
}
