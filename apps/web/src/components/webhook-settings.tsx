/** Settings card: the customer's webhooks, the secret shown once, and each webhook's delivery log with Resend. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { createWebhookInput, MAX_WEBHOOKS_PER_USER, WEBHOOK_EVENTS, type CreateWebhookInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Card, CopyButton, Field, Spinner } from './ui';

/** Each event's words in the catalogue (a dot in a key would nest). */
const EVENT_KEY = {
  'balance.low': 'balanceLow',
  'payment.credited': 'paymentCredited',
  'proxy_account.limit_reached': 'limitReached',
  'usage.threshold': 'usageThreshold',
  'proxy_account.expiring': 'accountExpiring',
  'account.suspended': 'accountSuspended',
  'statement.ready': 'statementReady',
  'plan.renewing': 'planRenewing',
} as const satisfies Record<(typeof WEBHOOK_EVENTS)[number], string>;

export function WebhookSettings() {
  const { t } = useTranslation('settings');
  const eventLabel = (e: (typeof WEBHOOK_EVENTS)[number]) => t(`webhooks.event.${EVENT_KEY[e]}`);
  const utils = trpc.useUtils();
  const list = trpc.webhooks.list.useQuery();
  const create = trpc.webhooks.create.useMutation();
  const remove = trpc.webhooks.delete.useMutation();
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const form = useForm<CreateWebhookInput>({ resolver: zodResolver(createWebhookInput), defaultValues: { url: '', events: [] } });
  const errors = form.formState.errors;

  async function onValid(values: CreateWebhookInput) {
    try {
      const r = await create.mutateAsync(values);
      setSecret(r.secret);
      form.reset({ url: '', events: [] });
      await utils.webhooks.list.invalidate();
    } catch (err) {
      form.setError('root', { message: errorMessage(err, t('webhooks.addFailed')) });
    }
  }
  async function onDelete(id: string, url: string) {
    if (!window.confirm(t('webhooks.confirmDelete', { url }))) return;
    await remove.mutateAsync({ id });
    await utils.webhooks.list.invalidate();
  }

  const hooks = list.data?.webhooks ?? [];
  return (
    <Card title={t('webhooks.title')} description={t('webhooks.description', { max: MAX_WEBHOOKS_PER_USER })}>
      {secret && (
        <Alert kind="success" onDismiss={() => setSecret(null)}>
          {t('webhooks.secret')} <code data-testid="webhook-secret">{secret}</code> <CopyButton text={secret} />
        </Alert>
      )}
      {list.isPending ? (
        <Spinner label={t('webhooks.loading')} />
      ) : (
        <ul className="stack" data-testid="webhook-list">
          {hooks.map((h) => (
            <li key={h.id}>
              <strong>{h.url}</strong> <span className="muted small">{h.events.map(eventLabel).join(', ')}</span>{' '}
              <Button variant="secondary" onClick={() => setOpen(open === h.id ? null : h.id)}>
                {t(open === h.id ? 'webhooks.hideDeliveries' : 'webhooks.deliveries')}
              </Button>{' '}
              <Button variant="secondary" onClick={() => void onDelete(h.id, h.url)} aria-label={t('webhooks.deleteLabel', { url: h.url })}>
                {t('words.delete')}
              </Button>
              {open === h.id && <DeliveryLog id={h.id} />}
            </li>
          ))}
        </ul>
      )}
      {hooks.length < MAX_WEBHOOKS_PER_USER && (
        <form onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate data-testid="webhook-form">
          {errors.root && <Alert kind="error">{errors.root.message}</Alert>}
          <Field label={t('webhooks.url')} placeholder="https://example.com/proxyhub" error={errors.url?.message} {...form.register('url')} />
          <fieldset>
            <legend>{t('webhooks.events')}</legend>
            {WEBHOOK_EVENTS.map((e) => (
              <label key={e} className="check">
                <input type="checkbox" value={e} {...form.register('events')} /> {eventLabel(e)}
              </label>
            ))}
            {errors.events && <p className="field-error">{errors.events.message}</p>}
          </fieldset>
          <Button type="submit" loading={create.isPending}>
            {t('webhooks.add')}
          </Button>
        </form>
      )}
    </Card>
  );
}

type Delivery = RouterOutputs['webhooks']['deliveries']['deliveries'][number];

function DeliveryLog({ id }: { id: string }) {
  const { t } = useTranslation('settings');
  const utils = trpc.useUtils();
  const log = trpc.webhooks.deliveries.useQuery({ id }, { staleTime: 0 });
  const resend = trpc.webhooks.resend.useMutation({ onSuccess: () => utils.webhooks.deliveries.invalidate({ id }) });
  if (log.isPending) return <Spinner label={t('webhooks.log.loading')} />;
  if (log.isError) return <Alert kind="error">{errorMessage(log.error, t('webhooks.log.loadFailed'))}</Alert>;
  if (!log.data.deliveries.length) return <p className="muted small">{t('webhooks.log.empty')}</p>;
  const columns: Column<Delivery>[] = [
    { head: t('webhooks.log.event'), cell: (d) => d.type },
    { head: t('words.created'), cell: (d) => fmt.dateTime(d.createdAt) },
    { head: t('words.status'), cell: (d) => t('webhooks.log.attempts', { status: d.status, count: d.attemptCount }) },
    {
      head: t('webhooks.log.lastAttempt'),
      cell: (d) => {
        const last = d.attempts.at(-1);
        return last ? (last.error ?? `HTTP ${last.statusCode}`) : '-';
      },
    },
  ];
  const resendCell = (d: Delivery) => (
    <Button variant="secondary" loading={resend.isPending && resend.variables?.deliveryId === d.id} onClick={() => resend.mutate({ id, deliveryId: d.id })}>
      {t('webhooks.log.resend')}
    </Button>
  );
  return (
    <DataTable
      testId="webhook-deliveries"
      columns={[...columns, { head: '', cell: resendCell }]}
      rows={log.data.deliveries}
      rowKey={(d) => d.id}
      empty={null}
    />
  );
}
