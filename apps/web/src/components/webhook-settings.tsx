/** Settings card: the customer's webhooks, the secret shown once, and each webhook's delivery log with Resend. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { createWebhookInput, MAX_WEBHOOKS_PER_USER, WEBHOOK_EVENTS, type CreateWebhookInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Card, CopyButton, Field, Spinner } from './ui';

const EVENT_LABELS: Record<(typeof WEBHOOK_EVENTS)[number], string> = {
  'balance.low': 'Balance low',
  'payment.credited': 'Payment credited',
  'proxy_account.limit_reached': 'Proxy account limit reached',
  'usage.threshold': 'Usage alert (share of a limit)',
  'proxy_account.expiring': 'Proxy account expiring',
  'account.suspended': 'Account suspended',
  'statement.ready': 'Statement ready',
  'plan.renewing': 'Plan renewing',
};

export function WebhookSettings() {
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
      form.setError('root', { message: errorMessage(err, 'Adding the webhook failed') });
    }
  }
  async function onDelete(id: string, url: string) {
    if (!window.confirm(`Delete the webhook to ${url}? Its pending deliveries are dropped.`)) return;
    await remove.mutateAsync({ id });
    await utils.webhooks.list.invalidate();
  }

  const hooks = list.data?.webhooks ?? [];
  return (
    <Card title="Webhooks" description={`We POST signed JSON to your URL when these events happen (up to ${MAX_WEBHOOKS_PER_USER} webhooks).`}>
      {secret && (
        <Alert kind="success" onDismiss={() => setSecret(null)}>
          Signing secret (shown once): <code data-testid="webhook-secret">{secret}</code> <CopyButton text={secret} />
        </Alert>
      )}
      {list.isPending ? (
        <Spinner label="Loading webhooks..." />
      ) : (
        <ul className="stack" data-testid="webhook-list">
          {hooks.map((h) => (
            <li key={h.id}>
              <strong>{h.url}</strong> <span className="muted small">{h.events.map((e) => EVENT_LABELS[e]).join(', ')}</span>{' '}
              <Button variant="secondary" onClick={() => setOpen(open === h.id ? null : h.id)}>
                {open === h.id ? 'Hide deliveries' : 'Deliveries'}
              </Button>{' '}
              <Button variant="secondary" onClick={() => void onDelete(h.id, h.url)} aria-label={`Delete webhook ${h.url}`}>
                Delete
              </Button>
              {open === h.id && <DeliveryLog id={h.id} />}
            </li>
          ))}
        </ul>
      )}
      {hooks.length < MAX_WEBHOOKS_PER_USER && (
        <form onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate data-testid="webhook-form">
          {errors.root && <Alert kind="error">{errors.root.message}</Alert>}
          <Field label="Webhook URL" placeholder="https://example.com/proxyhub" error={errors.url?.message} {...form.register('url')} />
          <fieldset>
            <legend>Events</legend>
            {WEBHOOK_EVENTS.map((e) => (
              <label key={e} className="check">
                <input type="checkbox" value={e} {...form.register('events')} /> {EVENT_LABELS[e]}
              </label>
            ))}
            {errors.events && <p className="field-error">{errors.events.message}</p>}
          </fieldset>
          <Button type="submit" loading={create.isPending}>
            Add webhook
          </Button>
        </form>
      )}
    </Card>
  );
}

type Delivery = RouterOutputs['webhooks']['deliveries']['deliveries'][number];
const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { head: 'Event', cell: (d) => d.type },
  { head: 'Created', cell: (d) => new Date(d.createdAt).toLocaleString() },
  { head: 'Status', cell: (d) => `${d.status} (${d.attemptCount} ${d.attemptCount === 1 ? 'attempt' : 'attempts'})` },
  {
    head: 'Last attempt',
    cell: (d) => {
      const last = d.attempts.at(-1);
      return last ? (last.error ?? `HTTP ${last.statusCode}`) : '-';
    },
  },
];

function DeliveryLog({ id }: { id: string }) {
  const utils = trpc.useUtils();
  const log = trpc.webhooks.deliveries.useQuery({ id }, { staleTime: 0 });
  const resend = trpc.webhooks.resend.useMutation({ onSuccess: () => utils.webhooks.deliveries.invalidate({ id }) });
  if (log.isPending) return <Spinner label="Loading deliveries..." />;
  if (log.isError) return <Alert kind="error">{errorMessage(log.error, 'Failed to load deliveries')}</Alert>;
  if (!log.data.deliveries.length) return <p className="muted small">No deliveries yet.</p>;
  const resendCell = (d: Delivery) => (
    <Button variant="secondary" loading={resend.isPending && resend.variables?.deliveryId === d.id} onClick={() => resend.mutate({ id, deliveryId: d.id })}>
      Resend
    </Button>
  );
  return (
    <DataTable
      testId="webhook-deliveries"
      columns={[...DELIVERY_COLUMNS, { head: '', cell: resendCell }]}
      rows={log.data.deliveries}
      rowKey={(d) => d.id}
      empty={null}
    />
  );
}
