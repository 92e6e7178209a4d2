/**
 * "New IP": one of the user's sticky lines gets a new exit now (POST /api/lines/rotate): every
 * gateway gives it a new upstream session within seconds and closes its open connections. Beside
 * each generated sticky line and on a line's Test result; the answer shows in one place.
 */
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isRotating, parseProxyUsername, ROTATION_REACHES_GATEWAYS_SECONDS } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { trpc } from '../trpc';
import { Alert, Button } from './ui';

type Outcome = { ok: true; text: string } | { ok: false; text: string };

/** Whether a "New IP" makes sense for this username: a sticky line (a rotating one gets a new IP on every connection anyway). */
export function isStickyLine(username: string): boolean {
  const parsed = parseProxyUsername(username);
  return parsed.ok && !isRotating(parsed.value);
}

/** The rotation call and its last answer, for one place on the page. */
export function useNewIp() {
  const { t } = useTranslation();
  const { mutateAsync } = trpc.proxyAccounts.rotateLine.useMutation();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [asking, setAsking] = useState<string | null>(null);
  const ask = useCallback(
    async (username: string) => {
      setOutcome(null);
      setAsking(username);
      try {
        const r = await mutateAsync({ username });
        setOutcome({ ok: true, text: t('newIp.done', { username: r.username, seconds: ROTATION_REACHES_GATEWAYS_SECONDS }) });
      } catch (err) {
        setOutcome({ ok: false, text: errorMessage(err, t('newIp.failed')) });
      } finally {
        setAsking(null);
      }
    },
    [mutateAsync, t],
  );
  // One object while nothing changes: the generated list is memoised on it.
  return useMemo(() => ({ ask, asking, outcome }), [ask, asking, outcome]);
}

export type NewIp = ReturnType<typeof useNewIp>;

/**
 * The "New IP" button for one line. `compact`: inside a row of the generated list, whose text must
 * stay the line alone (what a selection copies and what the row reads as): the words are drawn by
 * the stylesheet (`.line-action::after`), the name is the aria-label.
 */
export function NewIpButton({ username, newIp, compact }: { username: string; newIp: NewIp; compact?: boolean }) {
  const { t } = useTranslation();
  if (compact) {
    return (
      <button
        type="button"
        className="btn btn-link line-action"
        data-label={t('newIp.button')}
        aria-label={t('newIp.forLine', { username })}
        title={t('newIp.hint')}
        aria-busy={newIp.asking === username || undefined}
        disabled={newIp.asking !== null}
        onClick={() => void newIp.ask(username)}
      />
    );
  }
  return (
    <Button
      variant="secondary"
      aria-label={t('newIp.forLine', { username })}
      title={t('newIp.hint')}
      loading={newIp.asking === username}
      disabled={newIp.asking !== null}
      onClick={() => void newIp.ask(username)}
    >
      {t('newIp.button')}
    </Button>
  );
}

/** The last answer of a "New IP", where the page shows it. */
export function NewIpOutcome({ newIp }: { newIp: NewIp }) {
  const o = newIp.outcome;
  return (
    <div aria-live="polite" data-testid="new-ip-result">
      {o && (o.ok ? <Alert kind="success">{o.text}</Alert> : <Alert kind="error">{o.text}</Alert>)}
    </div>
  );
}
