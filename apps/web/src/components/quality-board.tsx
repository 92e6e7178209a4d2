/** The status page's quality board: each country's measured success and speed, a 90-day strip, and incident mails. */
import { useRef, useState } from 'react';
import type { QualityCountry } from '@proxyhub/core';
import { Alert, Button, Field } from './ui';
import { errorMessage } from '../lib/errors';
import { loadApi } from '../lib/form-deps';
import { useLazyForm } from '../lib/lazy-form';

const pct = (r: number | null) => (r === null ? '-' : `${(r * 100).toFixed(1)}%`);
const ms = (v: number | null) => (v === null ? '-' : `${v} ms`);

/** A day's colour: green from 99 %, amber from 90 %, red below. */
function dayLevel(okRate: number): string {
  return okRate >= 0.99 ? 'good' : okRate >= 0.9 ? 'fair' : 'bad';
}

/** The last 90 UTC dates, oldest first: days without probes show grey. */
function lastDays(today = new Date()): string[] {
  return Array.from({ length: 90 }, (_, i) => new Date(today.getTime() - (89 - i) * 86_400_000).toISOString().slice(0, 10));
}

function DayStrip({ c }: { c: QualityCountry }) {
  const byDate = new Map(c.days.map((d) => [d.date, d.okRate]));
  return (
    <ol className="uptime-bar quality-strip" aria-label={`${c.country}, last 90 days`}>
      {lastDays().map((date) => {
        const rate = byDate.get(date);
        const text = `${date}: ${rate === undefined ? 'no probes' : `${pct(rate)} of probes passed`}`;
        return <li key={date} className={`uptime-day uptime-${rate === undefined ? 'none' : dayLevel(rate)}`} title={text} aria-label={text} />;
      })}
    </ol>
  );
}

export function QualityBoardSection({ countries }: { countries: QualityCountry[] }) {
  return (
    <section className="card public-card" aria-label="Measured quality">
      <h2>Measured quality by country</h2>
      <p className="muted small">
        Every few minutes a test connection goes through each country&apos;s exits to a check page, as a customer&apos;s would. Success, connect times and
        exit-country matches are over the last 24 hours; a country is degraded from when too many of its last 3 tests fail until 3 in a row pass.
      </p>
      {countries.length === 0 ? (
        <p className="muted">No measurements yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="table quality-table" data-testid="quality-table">
            <thead>
              <tr>
                <th scope="col">Country</th>
                <th scope="col">Success, 24 h</th>
                <th scope="col">Connect p50</th>
                <th scope="col">Connect p95</th>
                <th scope="col">Exit in country</th>
              </tr>
            </thead>
            <tbody>
              {countries.map((c) => [
                <tr key={c.country} data-country={c.country} data-degraded={c.degraded}>
                  <th scope="row">
                    {c.country} {c.degraded && <span className="badge badge-amber">Degraded</span>}
                  </th>
                  <td data-label="Success, 24 h">{pct(c.okRate24h)}</td>
                  <td data-label="Connect p50">{ms(c.p50ConnectMs)}</td>
                  <td data-label="Connect p95">{ms(c.p95ConnectMs)}</td>
                  <td data-label="Exit in country">{pct(c.exitCountryMatchRate)}</td>
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

const SUBSCRIBE_FAILED = 'Could not subscribe. Please try again.';

/** Incident mails by double opt-in: the server mails a link, and only that link subscribes. */
export function SubscribeForm() {
  const form = useLazyForm((r) => r.statusSubscribe);
  const [sent, setSent] = useState<string | null>(null);
  const onSubmit = form.submit(async (input) => {
    try {
      setSent((await (await loadApi()).status.subscribe.mutate(input)).message);
    } catch (err) {
      form.setError(errorMessage(err, 'Could not subscribe', SUBSCRIBE_FAILED));
    }
  }, SUBSCRIBE_FAILED);
  return (
    <section className="card public-card" aria-label="Incident mails">
      <h2>Get a mail when a country is degraded</h2>
      {sent ? (
        <Alert kind="success">{sent}</Alert>
      ) : (
        <form className="form resend-form" onSubmit={onSubmit} onFocus={form.preload} noValidate aria-label="Subscribe to status mails">
          <p className="muted small">One mail when a country becomes degraded and one when it recovers; every mail has an unsubscribe link.</p>
          {form.formError && <Alert kind="error">{form.formError}</Alert>}
          <Field {...form.field('email')} label="Email" type="email" autoComplete="email" inputMode="email" placeholder="you@example.com" />
          <Button type="submit" loading={form.submitting}>
            Subscribe
          </Button>
        </form>
      )}
    </section>
  );
}

/** A mail's confirm or unsubscribe link: a button, so a mail scanner opening the link changes nothing. */
export function StatusLinkAction({ kind, token }: { kind: 'confirm' | 'unsubscribe'; token: string }) {
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
      setDone({ kind: 'success', text: r.message });
    } catch (err) {
      setDone({ kind: 'error', text: errorMessage(err, 'The link did not work', 'The link did not work. Please try again.') });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card public-card" aria-label={kind === 'confirm' ? 'Confirm subscription' : 'Unsubscribe'}>
      {done ? (
        <Alert kind={done.kind}>{done.text}</Alert>
      ) : (
        <>
          <p>{kind === 'confirm' ? 'Confirm that this address should get status mails.' : 'Stop status mails to this address.'}</p>
          <Button onClick={() => void act()} loading={busy}>
            {kind === 'confirm' ? 'Confirm subscription' : 'Unsubscribe'}
          </Button>
        </>
      )}
    </section>
  );
}
