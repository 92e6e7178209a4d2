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
/** "80, 90" to [80, 90] (a word stays a word, for the schema to refuse); the saved list arrives as numbers already. */
const percentList = (v: string | unknown[]) =>
  typeof v === 'string'
    ? v
        .split(/[,\s]+/)
        .filter(Boolean)
        .map((p) => (/^\d+$/.test(p) ? Number(p) : p))
    : v;

/** The low-balance alert threshold (empty turns the mails off) and the usage alert percents. */
export function AlertSettings() {
  const current = trpc.alerts.get.useQuery();
  const save = trpc.alerts.set.useMutation();
  // What the user typed wins over the saved value arriving later (a slow first load overwrote it).
  const [edited, setEdited] = useState(false);
  const { form, onSubmit, outcome } = useActionForm(
    resolver,
    { lowBalanceGB: null, usageAlertPercents: [80, 90] },
    async (input) => {
      const r = await save.mutateAsync(input);
      await current.refetch();
      setEdited(false);
      const usage = ` Usage alerts at ${r.usageAlertPercents.join(', ')} % of a limit.`;
      return (r.lowBalanceGB === null ? 'Low-balance alerts are off.' : `We will email you below ${r.lowBalanceGB} GB and at 0 GB.`) + usage;
    },
    (err) => errorMessage(err, 'Failed to save the alert'),
  );
  const { reset } = form;
  useEffect(() => {
    if (current.data && !edited) reset({ lowBalanceGB: current.data.lowBalanceGB, usageAlertPercents: current.data.usageAlertPercents }, { keepErrors: true });
  }, [current.data, edited, reset]);

  return (
    <Card
      title="Low-Balance Alerts"
      description="Get an email when your Remaining Data falls below this amount, and when it runs out (leave empty for no alerts); and when a proxy account reaches these percents of its cap, daily or monthly limit."
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
        <FormField
          form={form}
          name="usageAlertPercents"
          options={{ setValueAs: percentList, onChange: () => setEdited(true) }}
          label="Usage alerts at (%)"
          autoComplete="off"
          placeholder="e.g. 80, 90"
          hint="Up to 5 percents from 1 to 99, separated by commas"
        />
        <Button type="submit" loading={save.isPending}>
          Save Alert
        </Button>
      </form>
      {outcome}
    </Card>
  );
}
