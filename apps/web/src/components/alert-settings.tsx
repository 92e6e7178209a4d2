import { useEffect, useState, type FormEvent } from 'react';
import { setAlertsInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { validate } from '../lib/validation';
import { trpc } from '../trpc';
import { Alert, Button, Card, Field } from './ui';

/** The low-balance alert threshold: empty turns the mails off. */
export function AlertSettings() {
  const current = trpc.alerts.get.useQuery();
  const save = trpc.alerts.set.useMutation();
  const [value, setValue] = useState('');
  // What the user typed wins over the saved value arriving later (a slow first load overwrote it).
  const [edited, setEdited] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [result, setResult] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  useEffect(() => {
    if (current.data && !edited) setValue(current.data.lowBalanceGB === null ? '' : String(current.data.lowBalanceGB));
  }, [current.data, edited]);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setResult(null);
    const v = validate(setAlertsInput, { lowBalanceGB: value.trim() === '' ? null : Number(value) });
    if (!v.ok) return setError(v.errors.lowBalanceGB);
    try {
      const r = await save.mutateAsync(v.data);
      setResult({
        kind: 'success',
        text: r.lowBalanceGB === null ? 'Low-balance alerts are off.' : `We will email you below ${r.lowBalanceGB} GB and at 0 GB.`,
      });
      await current.refetch();
      setEdited(false);
    } catch (err) {
      setResult({ kind: 'error', text: errorMessage(err, 'Failed to save the alert') });
    }
  }

  return (
    <Card
      title="Low-Balance Alerts"
      description="Get an email when your Remaining Data falls below this amount, and when it runs out. Leave empty for no alerts."
    >
      <form className="form inline-form" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Low-balance alert">
        <Field
          label="Alert below (GB)"
          name="lowBalanceGB"
          inputMode="decimal"
          autoComplete="off"
          placeholder="e.g. 1.5"
          value={value}
          error={error}
          onChange={(e) => {
            setValue(e.target.value);
            setEdited(true);
            setError(undefined);
          }}
        />
        <Button type="submit" loading={save.isPending}>
          Save Alert
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
