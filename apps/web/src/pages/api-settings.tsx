import { useState, type FormEvent } from 'react';
import { processBatchInput } from '@proxyhub/core';
import { Alert, Button, Card, CopyButton, Field, PageHeader } from '../components/ui';
import { errorMessage } from '../lib/errors';
import { validate } from '../lib/validation';
import { useSession, useSessionActions } from '../session';
import { trpc } from '../trpc';

export function ApiSettingsPage() {
  const user = useSession().data!;
  return (
    <>
      <PageHeader title="Settings" subtitle="Your API key and proxy batches." />
      <Card title="API Key" description="Use this key to call the ProxyHub API from your own tools. Keep it secret.">
        <div className="key-row">
          <label className="sr-only" htmlFor="api-key">
            API key
          </label>
          <input id="api-key" className="key-input mono" readOnly value={user.apiKey} data-testid="api-key" onFocus={(e) => e.currentTarget.select()} />
          <CopyButton text={user.apiKey} variant="primary" ariaLabel="Copy API key" />
        </div>
      </Card>
      <AssociateBatch />
    </>
  );
}

function AssociateBatch() {
  const { refresh } = useSessionActions();
  const [batchId, setBatchId] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [result, setResult] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const process = trpc.credits.processBatch.useMutation();

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setResult(null);
    const v = validate(processBatchInput, { batchId });
    if (!v.ok) return setError(v.errors.batchId);
    try {
      const r = await process.mutateAsync(v.data);
      setResult({ kind: 'success', text: r.message });
      setBatchId('');
      await refresh();
    } catch (err) {
      setResult({ kind: 'error', text: errorMessage(err, 'Failed to process batch') });
    }
  }

  return (
    <Card title="Associate Batch Proxies" description="Bought a batch of proxy accounts from our shop? Enter its Batch ID to add it to your account.">
      <form className="form inline-form" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Associate batch proxies">
        <Field
          label="Batch ID"
          name="batchId"
          autoComplete="off"
          spellCheck={false}
          placeholder="e.g. 3f2a9c1e-..."
          value={batchId}
          error={error}
          onChange={(e) => {
            setBatchId(e.target.value);
            setError(undefined);
          }}
        />
        <Button type="submit" loading={process.isPending}>
          Associate Batch
        </Button>
      </form>
      {result && (
        <Alert kind={result.kind} onDismiss={() => setResult(null)}>
          {result.text}
        </Alert>
      )}
    </Card>
  );
}
