import { useEffect, useState } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import { setAlertsInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { FormField, useActionForm } from '../lib/form';
import { trpc } from '../trpc';
import { Button, Card } from './ui';

const resolver = zodResolver(setAlertsInput);
/** Empty is no alert (null); the saved value arrives as a number already. */
const threshold = (v: string | number | null) => (typeof v === 'string' ? (v.trim() === '' ? null : Number(v)) : v);

/** The low-balance alert threshold: empty turns the mails off. */
export function AlertSettings() {
  const current = trpc.alerts.get.useQuery();
  const save = trpc.alerts.set.useMutation();
  // What the user typed wins over the saved value arriving later (a slow first load overwrote it).
  const [edited, setEdited] = useState(false);
  const { form, onSubmit, outcome } = useActionForm(
    resolver,
    { lowBalanceGB: null },
    async (input) => {
      const r = await save.mutateAsync(input);
      await current.refetch();
      setEdited(false);
      return r.lowBalanceGB === null ? 'Low-balance alerts are off.' : `We will email you below ${r.lowBalanceGB} GB and at 0 GB.`;
    },
    (err) => errorMessage(err, 'Failed to save the alert'),
  );
  const { reset } = form;
  useEffect(() => {
    if (current.data && !edited) reset({ lowBalanceGB: current.data.lowBalanceGB }, { keepErrors: true });
  }, [current.data, edited, reset]);

  return (
    <Card
      title="Low-Balance Alerts"
      description="Get an email when your Remaining Data falls below this amount, and when it runs out. Leave empty for no alerts."
    >
      <form className="form inline-form" onSubmit={onSubmit} noValidate aria-label="Low-balance alert">
        <FormField
          form={form}
          name="lowBalanceGB"
          options={{ setValueAs: threshold, onChange: () => setEdited(true) }}
          label="Alert below (GB)"
          inputMode="decimal"
          autoComplete="off"
          placeholder="e.g. 1.5"
        />
        <Button type="submit" loading={save.isPending}>
          Save Alert
        </Button>
      </form>
      {outcome}
    </Card>
  );
}
