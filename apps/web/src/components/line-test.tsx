import { useRef, useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver } from 'react-hook-form';
import { proxyTestInput, type ProxyTestAnswer } from '@proxyhub/core';
import { currentLocale } from '../i18n';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import { FormField, formError, setFormError, submitWith, useSchemaForm } from '../lib/form';
import { trpc } from '../trpc';
import { isStickyLine, NewIpButton, NewIpOutcome, useNewIp } from './new-ip';
import { Alert, Button } from './ui';

type Values = { username: string };
const schemaResolver = zodResolver(proxyTestInput);

/** "United States (US)", "Соединённые Штаты (US)"; the code alone when the browser has no name for it. */
function countryName(code: string): string {
  try {
    const name = new Intl.DisplayNames([currentLocale()], { type: 'region' }).of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

function answerText(t: TFunction<'proxies'>, a: ProxyTestAnswer & { ok: true }): string {
  const exit = a.exitIp ? t('test.exitIp', { ip: a.exitIp }) : t('test.noExitIp');
  return t('test.works', { ms: fmt.number(a.latencyMs), exit, country: a.country ? countryName(a.country) : t('test.countryUnknown') });
}

/**
 * "Test" on the generated list: its first line, or a line pasted in the field, tried once by the
 * server through our gateway as a client would (POST /api/proxy-test: not billed, 10 a minute).
 * Shows whether it worked, how long it took, the exit address and its country, or why not; for a
 * sticky line, a "New IP" beside the answer (a banned exit: test again after it).
 */
export function LineTest({ firstLine }: { firstLine: string | null }) {
  const { t } = useTranslation('proxies');
  // The resolver reads the list's current first line: an empty field tests it.
  const first = useRef(firstLine);
  first.current = firstLine;
  const resolver = useRef<Resolver<Values, unknown, Values>>((values, context, options) =>
    schemaResolver({ username: values.username.trim() || first.current || '' }, context, { ...options, names: undefined }),
  ).current;
  const form = useSchemaForm(resolver, { username: '' });
  const test = trpc.proxyAccounts.test.useMutation();
  const [answer, setAnswer] = useState<ProxyTestAnswer | null>(null);
  const [tested, setTested] = useState('');
  const newIp = useNewIp();
  const onSubmit = submitWith(
    form,
    async (v) => {
      setAnswer(null);
      try {
        setTested(v.username);
        setAnswer(await test.mutateAsync(v));
      } catch (err) {
        setFormError(form, errorMessage(err, t('test.failed')));
      }
    },
    t('invalidInput'),
  );

  return (
    <div className="line-test">
      <form className="form inline-form" onSubmit={onSubmit} noValidate aria-label={t('test.form')}>
        <FormField
          form={form}
          name="username"
          label={t('test.label')}
          autoComplete="off"
          spellCheck={false}
          placeholder={firstLine ? t('test.placeholderList') : t('test.placeholder')}
          hint={t('test.hint')}
        />
        <Button type="submit" variant="secondary" loading={test.isPending}>
          {t('test.button')}
        </Button>
      </form>
      <div aria-live="polite" data-testid="line-test-result">
        {formError(form) && <Alert kind="error">{formError(form)}</Alert>}
        {answer?.ok === true && <Alert kind="success">{answerText(t, answer)}</Alert>}
        {answer?.ok === false &&
          // The line itself worked when only the check page failed: a warning, not "did not work".
          (answer.failure === 'check_page' ? (
            <Alert kind="info">{answer.error}</Alert>
          ) : (
            <Alert kind="error">{t('test.didNotWork', { error: answer.error })}</Alert>
          ))}
        {answer && isStickyLine(tested) && (
          <div className="line-test-new-ip">
            <NewIpButton username={tested} newIp={newIp} />
            <NewIpOutcome newIp={newIp} />
          </div>
        )}
      </div>
    </div>
  );
}
