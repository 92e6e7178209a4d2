/** Settings card: the account's API keys with their scopes, a new key's secret shown once, and delete. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { API_KEY_SCOPE_LABELS, API_KEY_SCOPES, createApiKeyInput, MAX_API_KEYS, type ApiKeyView, type CreateApiKeyInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Card, CopyButton, Field, TextAreaField } from './ui';

const when = (iso: string | null, none: string) => (iso ? new Date(iso).toLocaleString() : none);
const day = (iso: string | null, none: string) => (iso ? new Date(iso).toLocaleDateString() : none);

/** The networks box: one address or CIDR range per line (or separated by commas). */
const cidrList = (text: unknown): string[] => (Array.isArray(text) ? text.map(String) : typeof text === 'string' ? text.split(/[\s,]+/).filter(Boolean) : []);

const BLANK: CreateApiKeyInput = { name: '', scopes: [], expiresAt: '', allowedCidrs: [] };

export function ApiKeySettings() {
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
      form.setError('root', { message: errorMessage(err, 'Creating the API key failed') });
    }
  }
  async function onDelete(key: ApiKeyView) {
    if (!window.confirm(`Delete the API key "${key.name}"? Programs using it are refused at once.`)) return;
    await remove.mutateAsync({ id: key.id });
    await utils.apiKeys.list.invalidate();
  }

  const columns: Column<ApiKeyView>[] = [
    { head: 'Name', cell: (k) => <strong>{k.name}</strong> },
    { head: 'Scopes', cell: (k) => (k.isDefault ? 'All' : k.scopes.join(' ')) },
    { head: 'Key', cell: (k) => <code>{k.prefix}…</code> },
    { head: 'Created', cell: (k) => day(k.createdAt, '-') },
    { head: 'Last used', cell: (k) => when(k.lastUsedAt, 'Never') },
    { head: 'Expires', cell: (k) => day(k.expiresAt, 'Never') },
    {
      head: <span className="sr-only">Actions</span>,
      cell: (k) =>
        k.isDefault ? null : (
          <Button variant="secondary" onClick={() => void onDelete(k)} aria-label={`Delete API key ${k.name}`}>
            Delete
          </Button>
        ),
    },
  ];
  const keys = list.data?.keys;
  return (
    <Card
      title="API keys"
      description={`Keys for programs, each with only the rights it needs (up to ${MAX_API_KEYS}). A key's secret is shown once, when it is made.`}
    >
      {created && (
        <Alert kind="success" onDismiss={() => setCreated(null)}>
          API key “{created.name}” (shown once): <code data-testid="api-key-secret">{created.secret}</code> <CopyButton text={created.secret} />
        </Alert>
      )}
      {list.isError && <Alert kind="error">{errorMessage(list.error, 'Failed to load API keys')}</Alert>}
      <DataTable testId="api-key-list" label="API keys" columns={columns} rows={keys} rowKey={(k) => k.id} empty="No API keys yet." />
      {(keys?.length ?? 0) < MAX_API_KEYS && (
        <form onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate data-testid="api-key-form">
          {errors.root && <Alert kind="error">{errors.root.message}</Alert>}
          <Field label="Key name" placeholder="Usage dashboard" error={errors.name?.message} {...form.register('name')} />
          <fieldset>
            <legend>Scopes</legend>
            {API_KEY_SCOPES.map((s) => (
              <label key={s} className="check">
                <input type="checkbox" value={s} {...form.register('scopes')} /> <code>{s}</code> {API_KEY_SCOPE_LABELS[s]}
              </label>
            ))}
            {errors.scopes && <p className="field-error">{errors.scopes.message}</p>}
          </fieldset>
          <Field label="Expires (optional)" type="date" error={errors.expiresAt?.message} {...form.register('expiresAt')} />
          <TextAreaField
            label="Allowed addresses (optional)"
            hint="One IP address or CIDR range per line; empty: any address."
            rows={2}
            placeholder="203.0.113.0/24"
            error={errors.allowedCidrs?.message}
            {...form.register('allowedCidrs', { setValueAs: cidrList })}
          />
          <Button type="submit" loading={create.isPending}>
            Create API key
          </Button>
        </form>
      )}
    </Card>
  );
}
