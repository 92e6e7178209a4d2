/**
 * An upstream's provider account in the Upstreams tab: the balance, status and last check columns,
 * and the account form (provider, API key, URLs, low-balance threshold) on the server's own schema.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import type { TFunction } from 'i18next';
import type { Resolver } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import {
  UPSTREAM_ACCOUNT_STATUSES,
  UPSTREAM_PROVIDER_LABELS,
  UPSTREAM_PROVIDERS,
  upstreamAccountInput,
  type UpstreamAccountInput,
  type UpstreamAccountStatus,
  type UpstreamProvider,
} from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import { FormField, submitWith, formError, useSchemaForm } from '../../lib/form';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import type { Column } from '../data-table';
import { Alert, Button, Card, SelectField } from '../ui';
import { when } from './format';

type Upstream = RouterOutputs['admin']['upstreams']['upstreams'][number];

const STATUS_BADGE: Record<string, string> = { ok: 'badge-green', low: 'badge-amber', dry: 'badge-red', error: 'badge-red', unchecked: 'badge-gray' };
const isStatus = (s: string): s is UpstreamAccountStatus => (UPSTREAM_ACCOUNT_STATUSES as readonly string[]).includes(s);

/** Balance, status and last check: the account's columns of the upstreams table. */
export const accountColumns = (t: TFunction<'network'>): Column<Upstream>[] => [
  { head: t('account.head.balance'), num: true, cell: (u) => (u.account?.balance ? fmt.gb(u.account.balance.bytes) : t('dash')) },
  {
    head: t('account.head.account'),
    cell: (u) =>
      u.account ? (
        <span className={`badge ${STATUS_BADGE[u.account.status] ?? ''}`} title={u.account.error ?? undefined} data-account-status={u.account.status}>
          {isStatus(u.account.status) ? t(`account.status.${u.account.status}`) : u.account.status}
          {u.account.status === 'error' && u.account.error ? `: ${u.account.error}` : ''}
        </span>
      ) : (
        t('account.none')
      ),
  },
  { head: t('account.head.lastCheck'), cell: (u) => when(u.account?.lastCheckAt) },
];

/** The provider's name: brands as they are, our own contract in the language on show. */
const providerLabel = (t: TFunction<'network'>, p: UpstreamProvider) => (p === 'custom' ? t('account.providerCustom') : UPSTREAM_PROVIDER_LABELS[p]);

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
  const { t } = useTranslation('network');
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
      form.setError('root', { message: errorMessage(err, t('account.saveFailed')) });
    }
  };
  const custom = form.watch('provider') === 'custom';
  return (
    <Card title={t('account.title', { name: upstream.name })} description={t('account.description')}>
      <form onSubmit={submitWith(form, save, t('account.saveFailed'))} noValidate data-testid="upstream-account-form">
        {formError(form) && <Alert kind="error">{formError(form)}</Alert>}
        <div className="grid-3">
          <SelectField label={t('account.provider')} {...form.register('provider')}>
            {UPSTREAM_PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {providerLabel(t, p)}
              </option>
            ))}
          </SelectField>
          <FormField
            form={form}
            name="apiKey"
            label={t('account.apiKey')}
            type="password"
            autoComplete="new-password"
            placeholder={a?.apiKeySet ? t('account.unchanged') : ''}
          />
          <FormField form={form} name="lowBalanceGB" label={t('account.lowBalance')} inputMode="decimal" hint={t('account.lowBalanceHint')} />
          <FormField
            form={form}
            name="balanceUrl"
            label={t('account.balanceUrl')}
            autoComplete="off"
            hint={custom ? t('account.balanceUrlCustom') : t('account.balanceUrlHint')}
          />
          <FormField
            form={form}
            name="usageUrl"
            label={t('account.usageUrl')}
            autoComplete="off"
            hint={custom ? t('account.usageUrlCustom') : t('account.usageUrlHint')}
          />
        </div>
        <div style={{ display: 'flex', gap: 8 }}>
          <Button type="submit" loading={update.isPending}>
            {t('account.save')}
          </Button>
          {a && (
            <Button variant="danger" onClick={() => void save(null)}>
              {t('account.remove')}
            </Button>
          )}
          <Button variant="secondary" onClick={onClose}>
            {t('close')}
          </Button>
        </div>
      </form>
    </Card>
  );
}
