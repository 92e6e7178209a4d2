/**
 * A proxy account's own target rules: block the listed targets, or allow only them. One pattern per
 * line in the target policy's grammar; the core schema (the server's) checks each and names a bad one.
 */
import { useEffect, useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { Resolver } from 'react-hook-form';
import { MAX_TARGET_RULES, targetRulesInput, type TargetRuleMode, type TargetRules } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import { firstError, issueMessages, useActionForm } from '../lib/form';
import { trpc } from '../trpc';
import { Alert, Button, Card } from './ui';

type RulesValues = { mode: TargetRuleMode; patterns: string };

const valuesOf = (r: TargetRules): RulesValues => ({ mode: r.mode, patterns: r.patterns.join('\n') });

const resolver: Resolver<RulesValues, unknown, TargetRules> = (values) => {
  const patterns = values.patterns
    .split('\n')
    .map((p) => p.trim())
    .filter(Boolean);
  const parsed = targetRulesInput.safeParse({ mode: values.mode, patterns });
  return parsed.success ? { values: parsed.data, errors: {} } : { values: {}, errors: issueMessages(parsed.error.issues, ['mode', 'patterns']) };
};

/** The form alone (the proxy accounts page puts one in each account's row); `id` is `main` or a proxy user id. */
export function TargetRulesForm({ id, name }: { id: string; name: string }) {
  const { t } = useTranslation('proxies');
  const utils = trpc.useUtils();
  const rules = trpc.proxyAccounts.targetRules.useQuery({ id }, { staleTime: 0 });
  const save = trpc.proxyAccounts.setTargetRules.useMutation();
  const htmlId = useId();
  const { form, onSubmit, outcome } = useActionForm<RulesValues, TargetRules>(
    resolver,
    { mode: 'deny', patterns: '' },
    async (input, f) => {
      const r = await save.mutateAsync({ id, ...input });
      f.reset(valuesOf(r));
      await utils.proxyAccounts.targetRules.invalidate({ id });
      return t('rules.saved', { count: r.patterns.length, what: r.mode === 'deny' ? t('rules.refused') : t('rules.allowedOnly') });
    },
    (err) => errorMessage(err, t('rules.saveFailed')),
  );
  // Filled once loaded, never over what is being typed.
  useEffect(() => {
    if (rules.data && !form.formState.isDirty) form.reset(valuesOf(rules.data));
  }, [rules.data, form]);
  const invalid = firstError(form);
  return (
    <form className="stack target-rules" onSubmit={onSubmit} noValidate aria-label={t('rules.form', { name })}>
      {rules.error && <Alert kind="error">{errorMessage(rules.error, t('rules.loadFailed'))}</Alert>}
      {invalid ? <Alert kind="error">{invalid}</Alert> : outcome}
      <div className="field">
        <label htmlFor={`${htmlId}-mode`}>{t('rules.rule', { name })}</label>
        <select id={`${htmlId}-mode`} disabled={!rules.data} {...form.register('mode')}>
          <option value="deny">{t('rules.deny')}</option>
          <option value="allow">{t('rules.allow')}</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${htmlId}-patterns`}>{t('rules.targets', { name })}</label>
        <textarea
          id={`${htmlId}-patterns`}
          rows={6}
          className="mono"
          spellCheck={false}
          readOnly={!rules.data}
          placeholder={t('rules.placeholder')}
          {...form.register('patterns')}
        />
      </div>
      <div>
        <Button type="submit" variant="secondary" loading={save.isPending} disabled={!rules.data}>
          {t('rules.save')}
        </Button>
      </div>
    </form>
  );
}

/** How patterns are written and what a refused target gets, in the language on show. */
export function useTargetRulesHelp(): string {
  const { t } = useTranslation('proxies');
  return t('rules.help', { max: fmt.number(MAX_TARGET_RULES) });
}

/** Settings card: the main account's rules. */
export function TargetRulesSettings() {
  const { t } = useTranslation('proxies');
  const help = useTargetRulesHelp();
  return (
    <Card title={t('rules.title')} description={t('rules.description', { help })}>
      <TargetRulesForm id="main" name={t('rules.mainAccount')} />
    </Card>
  );
}
