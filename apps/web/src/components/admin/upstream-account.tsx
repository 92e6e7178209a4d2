/**
 * An upstream's provider account in the Upstreams tab: the balance, status and last check columns,
 * and the account form (provider, API key, URLs, low-balance threshold) on the server's own schema.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver } from 'react-hook-form';
import { formatGb, UPSTREAM_PROVIDER_LABELS, UPSTREAM_PROVIDERS, upstreamAccountInput, type UpstreamAccountInput, type UpstreamProvider } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { FormField, submitWith, formError, useSchemaForm } from '../../lib/form';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import type { Column } from '../data-table';
import { Alert, Button, Card, SelectField } from '../ui';
import { when } from './format';

type Upstream = RouterOutputs['admin']['upstreams']['upstreams'][number];

const STATUS_BADGE: Record<string, string> = { ok: 'badge-green', low: 'badge-amber', dry: 'badge-red', error: 'badge-red', unchecked: 'badge-gray' };
const STATUS_LABEL: Record<string, string> = { ok: 'OK', low: 'Low', dry: 'Dry', error: 'Error', unchecked: 'Not checked yet' };

/** Balance, status and last check: the account's columns of the upstreams table. */
export const accountColumns: Column<Upstream>[] = [
  { head: 'Balance', num: true, cell: (u) => (u.account?.balance ? `${formatGb(BigInt(u.account.balance.bytes))} GB` : '—') },
  {
    head: 'Account',
    cell: (u) =>
      u.account ? (
        <span className={`badge ${STATUS_BADGE[u.account.status] ?? ''}`} title={u.account.error ?? undefined} data-account-status={u.account.status}>
          {STATUS_LABEL[u.account.status] ?? u.account.status}
          {u.account.status === 'error' && u.account.error ? `: ${u.account.error}` : ''}
        </span>
      ) : (
        'None'
      ),
  },
  { head: 'Last check', cell: (u) => (u.account?.lastCheckAt ? when(u.account.lastCheckAt) : '—') },
];

/** What the inputs hold, as typed. */
interface AccountValues {
  provider: UpstreamProvider;
  apiKey: string;
  balanceUrl: string;
  usageUrl: string;
  lowBalanceGB: string;
}

/** The typed text as the schema's input: an empty key keeps the stored one, empty URLs are none. */
const accountResolver: Resolver<AccountValues, unknown, UpstreamAccountInput> = (values, context, options) =>
  zodResolver(upstreamAccountInput)(
    {
      provider: values.provider,
      ...(values.apiKey ? { apiKey: values.apiKey } : {}),
      balanceUrl: values.balanceUrl.trim() || null,
      usageUrl: values.usageUrl.trim() || null,
      lowBalanceGB: values.lowBalanceGB.trim() === '' ? 0 : Number(values.lowBalanceGB),
    },
    context,
    { ...options, names: undefined },
  );

export function UpstreamAccountForm({ upstream, onClose }: { upstream: Upstream; onClose: () => void }) {
  const a = upstream.account;
  const form = useSchemaForm<AccountValues, UpstreamAccountInput>(accountResolver, {
    provider: a?.provider ?? 'custom',
    apiKey: '',
    balanceUrl: a?.balanceUrl ?? '',
    usageUrl: a?.usageUrl ?? '',
    lowBalanceGB: a ? String(a.lowBalanceGB) : '',
  });
  const utils = trpc.useUtils();
  const update = trpc.admin.updateUpstream.useMutation();
  const save = async (account: UpstreamAccountInput | null) => {
    try {
      await update.mutateAsync({ id: upstream.id, account });
      await utils.admin.upstreams.invalidate();
      onClose();
    } catch (err) {
      form.setError('root', { message: errorMessage(err, 'Saving the account failed') });
    }
  };
  const custom = form.watch('provider') === 'custom';
  return (
    <Card
      title={`Provider account of ${upstream.name}`}
      description="Where the server reads this upstream's traffic left (every few minutes) and its usage per day. The API key is stored sealed and never shown again."
    >
      <form onSubmit={submitWith(form, save, 'Saving the account failed')} noValidate data-testid="upstream-account-form">
        {formError(form) && <Alert kind="error">{formError(form)}</Alert>}
        <div className="grid-3">
          <SelectField label="Provider" {...form.register('provider')}>
            {UPSTREAM_PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {UPSTREAM_PROVIDER_LABELS[p]}
              </option>
            ))}
          </SelectField>
          <FormField form={form} name="apiKey" label="API key" type="password" autoComplete="new-password" placeholder={a?.apiKeySet ? 'Unchanged' : ''} />
          <FormField
            form={form}
            name="lowBalanceGB"
            label="Low balance threshold (GB)"
            inputMode="decimal"
            hint="Below it the status is low; empty: only dry"
          />
          <FormField
            form={form}
            name="balanceUrl"
            label="Balance URL"
            autoComplete="off"
            hint={custom ? 'Answers { "bytes": N }' : "Optional: replaces the provider's API address"}
          />
          <FormField
            form={form}
            name="usageUrl"
            label="Usage URL"
            autoComplete="off"
            hint={custom ? 'Answers { "date", "bytes" } for ?date=YYYY-MM-DD' : "Optional: replaces the provider's API address for usage"}
          />
        </div>
        <div style={{ display: 'flex', gap: 8 }}>
          <Button type="submit" loading={update.isPending}>
            Save account
          </Button>
          {a && (
            <Button variant="danger" onClick={() => void save(null)}>
              Remove account
            </Button>
          )}
          <Button variant="secondary" onClick={onClose}>
            Close
          </Button>
        </div>
      </form>
    </Card>
  );
}
