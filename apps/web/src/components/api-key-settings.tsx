/** Settings card: the account's API keys with their scopes, a new key's secret shown once, and delete. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { API_KEY_SCOPES, createApiKeyInput, MAX_API_KEYS, type ApiKeyView, type CreateApiKeyInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Card, CopyButton, Field, TextAreaField } from './ui';

const when = (iso: string | null, none: string) => (iso ? fmt.dateTime(iso) : none);
const day = (iso: string | null, none: string) => (iso ? fmt.date(iso) : none);

/** Each scope's words in the catalogue (a colon in a key would read as a namespace). */
const SCOPE_KEY = {
  'usage:read': 'usageRead',
  'accounts:read': 'accountsRead',
  'accounts:write': 'accountsWrite',
  'lines:generate': 'linesGenerate',
  'billing:write': 'billingWrite',
} as const satisfies Record<(typeof API_KEY_SCOPES)[number], string>;

/** The networks box: one address or CIDR range per line (or separated by commas). */
const cidrList = (text: unknown): string[] => (Array.isArray(text) ? text.map(String) : typeof text === 'string' ? text.split(/[\s,]+/).filter(Boolean) : []);

const BLANK: CreateApiKeyInput = { name: '', scopes: [], expiresAt: '', allowedCidrs: [] };

export function ApiKeySettings() {
  const { t } = useTranslation('settings');
  const utils = trpc.useUtils();
  const list = trpc.apiKeys.list.useQuery();
  const create = trpc.apiKeys.create.useMutation();
  const remove = trpc.apiKeys.delete.useMutation();
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const form = useForm<CreateApiKeyInput, unknown, ReturnType<typeof createApiKeyInput.parse>>({
    resolver: zodResolver(createApiKeyInput),
    defaultValues: BLANK,
  });
  const errors = form.formState.errors;

  async function onValid(values: ReturnType<typeof createApiKeyInput.parse>) {
    try {
      const r = await create.mutateAsync(values);
      setCreated({ name: r.key.name, secret: r.secret });
      form.reset(BLANK);
      await utils.apiKeys.list.invalidate();
    } catch (err) {
      form.setError('root', { message: errorMessage(err, t('apiKeys.createFailed')) });
    }
  }
  async function onDelete(key: ApiKeyView) {
    if (!window.confirm(t('apiKeys.confirmDelete', { name: key.name }))) return;
    await remove.mutateAsync({ id: key.id });
    await utils.apiKeys.list.invalidate();
  }

  const columns: Column<ApiKeyView>[] = [
    { head: t('words.name'), cell: (k) => <strong>{k.isDefault ? t('apiKeys.defaultName') : k.name}</strong> },
    { head: t('apiKeys.scopes'), cell: (k) => (k.isDefault ? t('apiKeys.all') : k.scopes.join(' ')) },
    { head: t('apiKeys.key'), cell: (k) => <code>{k.prefix}…</code> },
    { head: t('words.created'), cell: (k) => day(k.createdAt, '-') },
    { head: t('apiKeys.lastUsed'), cell: (k) => when(k.lastUsedAt, t('words.never')) },
    { head: t('words.expires'), cell: (k) => day(k.expiresAt, t('words.never')) },
    {
      head: <span className="sr-only">{t('words.actions')}</span>,
      cell: (k) =>
        k.isDefault ? null : (
          <Button variant="secondary" onClick={() => void onDelete(k)} aria-label={t('apiKeys.deleteLabel', { name: k.name })}>
            {t('words.delete')}
          </Button>
        ),
    },
  ];
  const keys = list.data?.keys;
  return (
    <Card title={t('apiKeys.title')} description={t('apiKeys.description', { max: MAX_API_KEYS })}>
      {created && (
        <Alert kind="success" onDismiss={() => setCreated(null)}>
          {t('apiKeys.shownOnce', { name: created.name })} <code data-testid="api-key-secret">{created.secret}</code> <CopyButton text={created.secret} />
        </Alert>
      )}
      {list.isError && <Alert kind="error">{errorMessage(list.error, t('apiKeys.loadFailed'))}</Alert>}
      <DataTable testId="api-key-list" label={t('apiKeys.title')} columns={columns} rows={keys} rowKey={(k) => k.id} empty={t('apiKeys.empty')} />
      {(keys?.length ?? 0) < MAX_API_KEYS && (
        <form onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate data-testid="api-key-form">
          {errors.root && <Alert kind="error">{errors.root.message}</Alert>}
          <Field label={t('apiKeys.keyName')} placeholder={t('apiKeys.keyNamePlaceholder')} error={errors.name?.message} {...form.register('name')} />
          <fieldset>
            <legend>{t('apiKeys.scopes')}</legend>
            {API_KEY_SCOPES.map((s) => (
              <label key={s} className="check">
                <input type="checkbox" value={s} {...form.register('scopes')} /> <code>{s}</code> {t(`apiKeys.scope.${SCOPE_KEY[s]}`)}
              </label>
            ))}
            {errors.scopes && <p className="field-error">{errors.scopes.message}</p>}
          </fieldset>
          <Field label={t('apiKeys.expiresOptional')} type="date" error={errors.expiresAt?.message} {...form.register('expiresAt')} />
          <TextAreaField
            label={t('apiKeys.allowed')}
            hint={t('apiKeys.allowedHint')}
            rows={2}
            placeholder="203.0.113.0/24"
            error={errors.allowedCidrs?.message}
            {...form.register('allowedCidrs', { setValueAs: cidrList })}
          />
          <Button type="submit" loading={create.isPending}>
            {t('apiKeys.create')}
          </Button>
        </form>
      )}
    </Card>
  );
}
