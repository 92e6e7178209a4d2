/**
 * A proxy account's own target rules: block the listed targets, or allow only them. One pattern per
 * line in the target policy's grammar; the core schema (the server's) checks each and names a bad one.
 */
import { useEffect, useId } from 'react';
import type { Resolver } from 'react-hook-form';
import { MAX_TARGET_RULES, targetRulesInput, type TargetRuleMode, type TargetRules } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
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
      const n = `${r.patterns.length} pattern${r.patterns.length === 1 ? '' : 's'}`;
      return `Saved ${n}: ${r.mode === 'deny' ? 'these targets are refused' : 'only these targets are allowed'}. Every gateway applies them within 10 seconds.`;
    },
    (err) => errorMessage(err, 'The target rules could not be saved'),
  );
  // Filled once loaded, never over what is being typed.
  useEffect(() => {
    if (rules.data && !form.formState.isDirty) form.reset(valuesOf(rules.data));
  }, [rules.data, form]);
  const invalid = firstError(form);
  return (
    <form className="stack target-rules" onSubmit={onSubmit} noValidate aria-label={`Target rules of ${name}`}>
      {rules.error && <Alert kind="error">{errorMessage(rules.error, 'The target rules could not be loaded')}</Alert>}
      {invalid ? <Alert kind="error">{invalid}</Alert> : outcome}
      <div className="field">
        <label htmlFor={`${htmlId}-mode`}>Rule for {name}</label>
        <select id={`${htmlId}-mode`} disabled={!rules.data} {...form.register('mode')}>
          <option value="deny">Block the targets listed</option>
          <option value="allow">Allow only the targets listed</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${htmlId}-patterns`}>Targets for {name}</label>
        <textarea
          id={`${htmlId}-patterns`}
          rows={6}
          className="mono"
          spellCheck={false}
          readOnly={!rules.data}
          placeholder={'e.g. google-analytics.com\n*.doubleclick.net'}
          {...form.register('patterns')}
        />
      </div>
      <div>
        <Button type="submit" variant="secondary" loading={save.isPending} disabled={!rules.data}>
          Save target rules
        </Button>
      </div>
    </form>
  );
}

export const TARGET_RULES_HELP = `One pattern per line, up to ${MAX_TARGET_RULES.toLocaleString()}: example.com is it and every subdomain, *.example.com only its subdomains. A refused target gets 403 "Target not allowed for this proxy account" and costs nothing; the TLS server name inside a tunnel is checked too. In allow mode, targets given as an IP address are refused.`;

/** Settings card: the main account's rules. */
export function TargetRulesSettings() {
  return (
    <Card title="Target rules" description={`Which sites your main proxy account may reach. ${TARGET_RULES_HELP}`}>
      <TargetRulesForm id="main" name="the main account" />
    </Card>
  );
}
