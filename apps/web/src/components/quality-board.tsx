/** The status page's quality board: each country's measured success and speed, a 90-day strip, and incident mails. */
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { QualityCountry } from '@proxyhub/core';
import { Alert, Button, Field } from './ui';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import { loadApi } from '../lib/form-deps';
import { useLazyForm } from '../lib/lazy-form';
import { translatedNotice } from '../lib/notice-text';

const pct = (r: number | null) => (r === null ? '-' : fmt.number(r, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 }));
const ms = (v: number | null) => (v === null ? '-' : fmt.number(v, { style: 'unit', unit: 'millisecond' }));

/** A day's colour: green from 99 %, amber from 90 %, red below. */
function dayLevel(okRate: number): string {
  return okRate >= 0.99 ? 'good' : okRate >= 0.9 ? 'fair' : 'bad';
}

/** The last 90 UTC dates, oldest first: days without probes show grey. */
function lastDays(today = new Date()): string[] {
  return Array.from({ length: 90 }, (_, i) => new Date(today.getTime() - (89 - i) * 86_400_000).toISOString().slice(0, 10));
}

function DayStrip({ c }: { c: QualityCountry }) {
  const { t } = useTranslation('public');
  const byDate = new Map(c.days.map((d) => [d.date, d.okRate]));
  return (
    <ol className="uptime-bar quality-strip" aria-label={t('quality.strip', { country: c.country })}>
      {lastDays().map((date) => {
        const rate = byDate.get(date);
        const text = rate === undefined ? t('quality.dayNoProbes', { date }) : t('quality.dayPassed', { date, pct: pct(rate) });
        return <li key={date} className={`uptime-day uptime-${rate === undefined ? 'none' : dayLevel(rate)}`} title={text} aria-label={text} />;
      })}
    </ol>
  );
}

export function QualityBoardSection({ countries }: { countries: QualityCountry[] }) {
  const { t } = useTranslation('public');
  return (
    <section className="card public-card" aria-label={t('quality.section')}>
      <h2>{t('quality.title')}</h2>
      <p className="muted small">{t('quality.explain')}</p>
      {countries.length === 0 ? (
        <p className="muted">{t('quality.none')}</p>
      ) : (
        <div className="table-wrap">
          <table className="table quality-table" data-testid="quality-table">
            <thead>
              <tr>
                <th scope="col">{t('quality.country')}</th>
                <th scope="col">{t('quality.success')}</th>
                <th scope="col">{t('quality.p50')}</th>
                <th scope="col">{t('quality.p95')}</th>
                <th scope="col">{t('quality.exit')}</th>
              </tr>
            </thead>
            <tbody>
              {countries.map((c) => [
                <tr key={c.country} data-country={c.country} data-degraded={c.degraded}>
                  <th scope="row">
                    {c.country} {c.degraded && <span className="badge badge-amber">{t('quality.degraded')}</span>}
                  </th>
                  <td data-label={t('quality.success')}>{pct(c.okRate24h)}</td>
                  <td data-label={t('quality.p50')}>{ms(c.p50ConnectMs)}</td>
                  <td data-label={t('quality.p95')}>{ms(c.p95ConnectMs)}</td>
                  <td data-label={t('quality.exit')}>{pct(c.exitCountryMatchRate)}</td>
                </tr>,
                <tr key={`${c.country}-days`} className="quality-strip-row" data-strip={c.country}>
                  <td colSpan={5}>
                    <DayStrip c={c} />
                  </td>
                </tr>,
              ])}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Incident mails by double opt-in: the server mails a link, and only that link subscribes. */
export function SubscribeForm() {
  const { t } = useTranslation('public');
  const form = useLazyForm((r) => r.statusSubscribe);
  const [sent, setSent] = useState<string | null>(null);
  const onSubmit = form.submit(async (input) => {
    try {
      setSent(translatedNotice((await (await loadApi()).status.subscribe.mutate(input)).message));
    } catch (err) {
      form.setError(errorMessage(err, t('quality.subscribeFailed'), t('quality.subscribeUnexpected')));
    }
  }, t('quality.subscribeUnexpected'));
  return (
    <section className="card public-card" aria-label={t('quality.mails')}>
      <h2>{t('quality.subscribeTitle')}</h2>
      {sent ? (
        <Alert kind="success">{sent}</Alert>
      ) : (
        <form className="form resend-form" onSubmit={onSubmit} onFocus={form.preload} noValidate aria-label={t('quality.subscribeForm')}>
          <p className="muted small">{t('quality.subscribeLead')}</p>
          {form.formError && <Alert kind="error">{form.formError}</Alert>}
          <Field {...form.field('email')} label={t('quality.email')} type="email" autoComplete="email" inputMode="email" placeholder="you@example.com" />
          <Button type="submit" loading={form.submitting}>
            {t('quality.subscribe')}
          </Button>
        </form>
      )}
    </section>
  );
}

/** A mail's confirm or unsubscribe link: a button, so a mail scanner opening the link changes nothing. */
export function StatusLinkAction({ kind, token }: { kind: 'confirm' | 'unsubscribe'; token: string }) {
  const { t } = useTranslation('public');
  const [done, setDone] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const once = useRef(false);
  const act = async () => {
    if (once.current) return;
    once.current = true;
    setBusy(true);
    try {
      const api = await loadApi();
      const r = kind === 'confirm' ? await api.status.confirm.mutate({ token }) : await api.status.unsubscribe.mutate({ token });
      setDone({ kind: 'success', text: translatedNotice(r.message) });
    } catch (err) {
      setDone({ kind: 'error', text: errorMessage(err, t('quality.linkFailed'), t('quality.linkUnexpected')) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card public-card" aria-label={t(kind === 'confirm' ? 'quality.confirmTitle' : 'quality.unsubscribe')}>
      {done ? (
        <Alert kind={done.kind}>{done.text}</Alert>
      ) : (
        <>
          <p>{t(kind === 'confirm' ? 'quality.confirmText' : 'quality.unsubscribeText')}</p>
          <Button onClick={() => void act()} loading={busy}>
            {t(kind === 'confirm' ? 'quality.confirmTitle' : 'quality.unsubscribe')}
          </Button>
        </>
      )}
    </section>
  );
}
