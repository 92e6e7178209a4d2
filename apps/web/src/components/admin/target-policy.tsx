/**
 * The target policy (owners): domain patterns the gateways refuse, one per line, and whether targets
 * given as an IP address are refused. The core schema (the server's) checks every pattern and names a bad one.
 */
import { useEffect } from 'react';
import type { Resolver } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { MAX_TARGET_POLICY_RULES, targetPolicyInput, type TargetPolicy } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import { firstError, issueMessages, useActionForm } from '../../lib/form';
import { trpc } from '../../trpc';
import { Alert, Button, Card } from '../ui';

/** The rules as typed, one per line. */
type PolicyValues = { rules: string; blockRawIp: boolean };

const valuesOf = (p: TargetPolicy): PolicyValues => ({ rules: p.rules.join('\n'), blockRawIp: p.blockRawIp });

/** The lines as the schema's list (blank lines left out); its messages under the text box. */
const resolver: Resolver<PolicyValues, unknown, TargetPolicy> = (values) => {
  const rules = values.rules
    .split('\n')
    .map((r) => r.trim())
    .filter(Boolean);
  const parsed = targetPolicyInput.safeParse({ rules, blockRawIp: values.blockRawIp });
  return parsed.success ? { values: parsed.data, errors: {} } : { values: {}, errors: issueMessages(parsed.error.issues, ['rules', 'blockRawIp']) };
};

export function AdminTargetPolicy() {
  const { t } = useTranslation('network');
  const policy = trpc.admin.targetPolicy.useQuery(undefined, { staleTime: 0 });
  const save = trpc.admin.setTargetPolicy.useMutation();
  const { form, onSubmit, outcome } = useActionForm(
    resolver,
    { rules: '', blockRawIp: false },
    async (input, f) => {
      const p = await save.mutateAsync(input);
      f.reset(valuesOf(p));
      return t('policy.saved', { count: p.rules.length });
    },
    (err) => errorMessage(err, t('policy.saveFailed')),
  );
  // The stored policy fills the form once it arrives, never over what the admin is typing (a
  // refetch used to wipe it); until then the box is read-only, so nothing typed is lost to it.
  useEffect(() => {
    if (policy.data && !form.formState.isDirty) form.reset(valuesOf(policy.data));
  }, [policy.data, form]);
  const invalid = firstError(form);
  return (
    <Card title={t('policy.title')} description={t('policy.description', { max: fmt.number(MAX_TARGET_POLICY_RULES) })}>
      {policy.error && <Alert kind="error">{errorMessage(policy.error, t('policy.loadFailed'))}</Alert>}
      <form className="stack" onSubmit={onSubmit} noValidate>
        {invalid ? <Alert kind="error">{invalid}</Alert> : outcome}
        <div className="field">
          <label htmlFor="target-policy-rules">{t('policy.blocked')}</label>
          <textarea id="target-policy-rules" rows={10} className="mono" spellCheck={false} readOnly={!policy.data} {...form.register('rules')} />
        </div>
        <label className="check">
          <input type="checkbox" {...form.register('blockRawIp')} />
          <span>{t('policy.rawIp')}</span>
        </label>
        <div>
          <Button type="submit" loading={save.isPending} disabled={!policy.data}>
            {t('policy.save')}
          </Button>
        </div>
      </form>
    </Card>
  );
}
