import { useEffect, useState } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
import { setAlertsInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
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
  const { t } = useTranslation('settings');
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
      const usage = t('alerts.usageSaved', { percents: r.usageAlertPercents.map((p) => fmt.number(p)).join(', ') });
      return `${r.lowBalanceGB === null ? t('alerts.off') : t('alerts.on', { gb: fmt.number(r.lowBalanceGB) })} ${usage}`;
    },
    (err) => errorMessage(err, t('alerts.failed')),
  );
  const { reset } = form;
  useEffect(() => {
    if (current.data && !edited) reset({ lowBalanceGB: current.data.lowBalanceGB, usageAlertPercents: current.data.usageAlertPercents }, { keepErrors: true });
  }, [current.data, edited, reset]);

  return (
    <Card title={t('alerts.title')} description={t('alerts.description')}>
      <form className="form inline-form" onSubmit={onSubmit} noValidate aria-label={t('alerts.formLabel')}>
        <FormField
          form={form}
          name="lowBalanceGB"
          options={{ setValueAs: threshold, onChange: () => setEdited(true) }}
          label={t('alerts.below')}
          inputMode="decimal"
          autoComplete="off"
          placeholder={t('alerts.belowPlaceholder')}
        />
        <FormField
          form={form}
          name="usageAlertPercents"
          options={{ setValueAs: percentList, onChange: () => setEdited(true) }}
          label={t('alerts.usage')}
          autoComplete="off"
          placeholder={t('alerts.usagePlaceholder')}
          hint={t('alerts.usageHint')}
        />
        <Button type="submit" loading={save.isPending}>
          {t('alerts.save')}
        </Button>
      </form>
      {outcome}
    </Card>
  );
}
