import { useRef, useState } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver } from 'react-hook-form';
import { proxyTestInput, type ProxyTestAnswer } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { FormField, formError, setFormError, submitWith, useSchemaForm } from '../lib/form';
import { trpc } from '../trpc';
import { isStickyLine, NewIpButton, NewIpOutcome, useNewIp } from './new-ip';
import { Alert, Button } from './ui';

type Values = { username: string };
const schemaResolver = zodResolver(proxyTestInput);
const regions = new Intl.DisplayNames(['en'], { type: 'region' });

/** "United States (US)"; the code alone when the browser has no name for it. */
function countryName(code: string): string {
  try {
    const name = regions.of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

function answerText(a: ProxyTestAnswer & { ok: true }): string {
  const exit = a.exitIp ? `exit IP ${a.exitIp}` : 'the check page did not show the exit IP';
  return `The line works: ${a.latencyMs.toLocaleString('en-US')} ms, ${exit}, ${a.country ? countryName(a.country) : 'country unknown'}.`;
}

/**
 * "Test" on the generated list: its first line, or a line pasted in the field, tried once by the
 * server through our gateway as a client would (POST /api/proxy-test: not billed, 10 a minute).
 * Shows whether it worked, how long it took, the exit address and its country, or why not; for a
 * sticky line, a "New IP" beside the answer (a banned exit: test again after it).
 */
export function LineTest({ firstLine }: { firstLine: string | null }) {
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
        setFormError(form, errorMessage(err, 'The line could not be tested, try again'));
      }
    },
    'Invalid input',
  );

  return (
    <div className="line-test">
      <form className="form inline-form" onSubmit={onSubmit} noValidate aria-label="Test a proxy line">
        <FormField
          form={form}
          name="username"
          label="Test a line"
          autoComplete="off"
          spellCheck={false}
          placeholder={firstLine ? 'Empty: the first line of the list · or paste any of your lines' : 'Paste one of your proxy lines'}
          hint="Tried once through the gateway, as your client would: not billed, up to 10 tests a minute."
        />
        <Button type="submit" variant="secondary" loading={test.isPending}>
          Test
        </Button>
      </form>
      <div aria-live="polite" data-testid="line-test-result">
        {formError(form) && <Alert kind="error">{formError(form)}</Alert>}
        {answer?.ok === true && <Alert kind="success">{answerText(answer)}</Alert>}
        {answer?.ok === false &&
          // The line itself worked when only the check page failed: a warning, not "did not work".
          (answer.failure === 'check_page' ? <Alert kind="info">{answer.error}</Alert> : <Alert kind="error">The line did not work: {answer.error}</Alert>)}
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
