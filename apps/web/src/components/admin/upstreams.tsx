/**
 * The admin panel's upstream pools: the list with 30 days of usage, cost, revenue and margin; one
 * pool's days and reconciliation; test, enable or disable, delete; the form to add or edit one.
 */
import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { DEFAULT_UPSTREAM_CHECK_URL } from '@proxyhub/core';
import { formatBytes } from '../../lib/bytes';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { formatConnectMs, formatOkRate, qualityColumns } from '../connection-quality';
import { DataTable, type Column } from '../data-table';
import { Alert, Button, Card, Field, SelectField, Spinner } from '../ui';
import { costWarningText } from './cost-warning';
import { accountColumns, UpstreamAccountForm } from './upstream-account';
import { UpstreamForm } from './upstream-form';
import { UpstreamReconciliation } from './upstream-reconciliation';

type Upstream = RouterOutputs['admin']['upstreams']['upstreams'][number];

type TestAnswer = RouterOutputs['admin']['testUpstream'];

/** One tunnel through the upstream as a line for this place would go, and the page it fetched. */
function UpstreamTest({ upstream, onClose }: { upstream: Upstream; onClose: () => void }) {
  const { t } = useTranslation('network');
  const [place, setPlace] = useState({ country: 'US', state: '', city: '', zip: '', asn: '', minutes: '10', url: '' });
  const [hard, setHard] = useState(false);
  const [answer, setAnswer] = useState<TestAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const test = trpc.admin.testUpstream.useMutation();
  const set = (k: keyof typeof place) => (e: { target: { value: string } }) => setPlace({ ...place, [k]: e.target.value });
  async function run() {
    setError(null);
    setAnswer(null);
    try {
      setAnswer(
        await test.mutateAsync({
          id: upstream.id,
          country: place.country,
          ...(place.state ? { state: place.state } : {}),
          ...(place.state && place.city ? { city: place.city } : {}),
          ...(place.zip.trim() ? { zip: place.zip.trim() } : {}),
          ...(place.asn.trim() ? { asn: place.asn.trim() } : {}),
          ...(hard ? { hard: true } : {}),
          minutes: Number(place.minutes),
          ...(place.url.trim() ? { url: place.url.trim() } : {}),
        }),
      );
    } catch (err) {
      setError(errorMessage(err, t('test.failed')));
    }
  }
  return (
    <Card title={t('test.title', { name: upstream.name })} description={t('test.description')}>
      <div data-testid="upstream-test">
        <div className="grid-3">
          <Field label={t('test.country')} value={place.country} onChange={set('country')} />
          <Field label={t('test.state')} hint={t('test.stateHint')} value={place.state} onChange={set('state')} />
          <Field label={t('test.city')} hint={t('test.cityHint')} value={place.city} onChange={set('city')} />
          <Field label={t('test.zip')} hint={t('test.zipHint')} value={place.zip} onChange={set('zip')} />
          <Field label={t('test.asn')} hint={t('test.asnHint')} value={place.asn} onChange={set('asn')} />
          <SelectField label={t('test.session')} value={place.minutes} onChange={set('minutes')}>
            <option value="0">{t('test.rotating')}</option>
            <option value="10">{t('test.sticky10')}</option>
            <option value="60">{t('test.sticky60')}</option>
          </SelectField>
          <Field label={t('test.checkUrl')} hint={t('test.checkUrlHint')} placeholder={DEFAULT_UPSTREAM_CHECK_URL} value={place.url} onChange={set('url')} />
        </div>
        <label className="check">
          <input type="checkbox" checked={hard} onChange={(e) => setHard(e.target.checked)} />
          <span>{t('test.hard')}</span>
        </label>
        <div style={{ display: 'flex', gap: 8 }}>
          <Button onClick={() => void run()} loading={test.isPending}>
            {t('test.run')}
          </Button>
          <Button variant="secondary" onClick={onClose}>
            {t('close')}
          </Button>
        </div>
        {error && <Alert kind="error">{error}</Alert>}
        {answer && (
          <div data-testid="upstream-test-answer">
            <Alert kind={answer.ok ? 'success' : 'error'}>
              {answer.ok
                ? t('test.ok', { status: answer.status, ms: fmt.number(answer.latencyMs) })
                : t('test.failedAfter', { ms: fmt.number(answer.latencyMs), reason: answer.reason })}
            </Alert>
            {!answer.ok && (
              // The words as the upstream or the TLS library said them, for the provider's support.
              <details data-testid="upstream-test-details">
                <summary>{t('test.details')}</summary>
                <pre className="mono">{answer.error}</pre>
              </details>
            )}
            <p>
              {t('test.usernameSent')}
              <span className="mono">{answer.username}</span>
            </p>
            {answer.body && <pre className="mono">{answer.body}</pre>}
          </div>
        )}
      </div>
    </Card>
  );
}

function UpstreamDays({ upstream }: { upstream: Upstream }) {
  const { t } = useTranslation('network');
  const q = trpc.admin.upstreamUsage.useQuery({ id: upstream.id }, { staleTime: 0 });
  return (
    <Card
      title={t('days.title', { name: upstream.name })}
      description={t('days.description', {
        sold: q.data ? t('days.sold', { price: fmt.cents(q.data.soldPricePerGbCents) }) : '',
        quality: q.data ? t('days.quality', { okRate: formatOkRate(q.data.quality.okRate), connect: formatConnectMs(q.data.quality.p50ConnectMs) }) : '',
      })}
    >
      {q.isPending ? (
        <Spinner label={t('loading')} />
      ) : q.isError ? (
        <Alert kind="error">{errorMessage(q.error, t('days.loadFailed'))}</Alert>
      ) : (
        <DataTable testId="upstream-days" columns={dayColumns(t)} rows={q.data.days} rowKey={(d) => d.day} empty={null} />
      )}
    </Card>
  );
}

/** Traffic, cost, revenue and margin: the columns of the per-upstream and the per-day tables. */
function usageColumns<T>(t: TFunction<'network'>, figures: (row: T) => UsageFigures): Column<T>[] {
  return [
    { head: t('upstreams.head.traffic'), num: true, cell: (r) => formatBytes(String(figures(r).bytes)) },
    { head: t('upstreams.head.cost'), num: true, cell: (r) => fmt.cents(figures(r).costCents) },
    { head: t('upstreams.head.revenue'), num: true, cell: (r) => fmt.cents(figures(r).revenueCents) },
    { head: t('upstreams.head.margin'), num: true, cell: (r) => fmt.cents(figures(r).marginCents) },
  ];
}

type UsageFigures = { bytes: number | string | bigint; costCents: number; revenueCents: number; marginCents: number };
type Day = RouterOutputs['admin']['upstreamUsage']['days'][number];
// The day stays as the UTC date it is (YYYY-MM-DD, as the CSV and the API name it).
const dayColumns = (t: TFunction<'network'>): Column<Day>[] => [
  { head: t('upstreams.head.day'), cell: (d) => d.day },
  ...usageColumns<Day>(t, (d) => d),
  ...qualityColumns<Day>((d) => d),
];

function upstreamColumns(t: TFunction<'network'>, select: (id: string) => void): Column<Upstream>[] {
  return [
    {
      head: t('upstreams.head.name'),
      cell: (u) => (
        <>
          <button type="button" className="link-button" onClick={() => select(u.id)}>
            {u.name}
          </button>
          {u.costWarning && (
            <div className="field-error" role="note" data-testid="upstream-cost-warning">
              {costWarningText(t, u.costWarning)}
            </div>
          )}
        </>
      ),
    },
    { head: t('upstreams.head.endpoint'), className: 'mono', cell: (u) => `${u.protocol}://${u.host}:${u.port}` },
    { head: t('upstreams.head.countries'), cell: (u) => u.countries?.join(', ') ?? t('upstreams.allCountries') },
    { head: t('upstreams.head.weight'), num: true, cell: (u) => fmt.number(u.weight) },
    { head: t('upstreams.head.state'), cell: (u) => (u.enabled ? t('upstreams.enabled') : t('upstreams.disabled')) },
    ...usageColumns<Upstream>(t, (u) => u.usage),
    ...accountColumns(t),
  ];
}

export function AdminUpstreams() {
  const { t } = useTranslation('network');
  const q = trpc.admin.upstreams.useQuery(undefined, { staleTime: 0 });
  const utils = trpc.useUtils();
  const update = trpc.admin.updateUpstream.useMutation();
  const remove = trpc.admin.deleteUpstream.useMutation();
  const [editing, setEditing] = useState<Upstream | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [testing, setTesting] = useState<Upstream | null>(null);
  const [accountOf, setAccountOf] = useState<Upstream | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function run(failed: string, f: () => Promise<unknown>) {
    setError(null);
    try {
      await f();
      await utils.admin.upstreams.invalidate();
    } catch (err) {
      setError(errorMessage(err, failed));
    }
  }
  const onDelete = (u: Upstream) => {
    if (!window.confirm(t('upstreams.confirmDelete', { name: u.name }))) return;
    if (selected === u.id) setSelected(null);
    void run(t('upstreams.deleteFailed'), () => remove.mutateAsync({ id: u.id }));
  };
  const list = q.data?.upstreams ?? [];
  const shown = list.find((u) => u.id === selected) ?? null;
  const actionsCell = (u: Upstream) => (
    <div style={{ display: 'flex', gap: 6 }}>
      <Button variant="secondary" onClick={() => setEditing(u)}>
        {t('upstreams.edit')}
      </Button>
      <Button variant="secondary" onClick={() => setTesting(u)}>
        {t('upstreams.test')}
      </Button>
      <Button variant="secondary" onClick={() => setAccountOf(u)}>
        {t('upstreams.account')}
      </Button>
      <Button variant="secondary" onClick={() => void run(t('upstreams.saveFailed'), () => update.mutateAsync({ id: u.id, enabled: !u.enabled }))}>
        {u.enabled ? t('upstreams.disable') : t('upstreams.enable')}
      </Button>
      <Button variant="danger" onClick={() => onDelete(u)}>
        {t('upstreams.delete')}
      </Button>
    </div>
  );
  return (
    <div className="stack">
      <Card title={t('upstreams.title', { n: q.data ? fmt.number(list.length) : '…' })} description={t('upstreams.description')}>
        {error && <Alert kind="error">{error}</Alert>}
        {q.isError && <Alert kind="error">{errorMessage(q.error, t('upstreams.loadFailed'))}</Alert>}
        <DataTable
          testId="upstreams-table"
          columns={[...upstreamColumns(t, setSelected), { head: '', cell: actionsCell }]}
          rows={q.data?.upstreams}
          rowKey={(u) => u.id}
          rowProps={(u) => ({ 'data-upstream': u.name })}
          empty={t('upstreams.empty')}
        />
      </Card>
      {shown && <UpstreamDays key={shown.id} upstream={shown} />}
      {shown && <UpstreamReconciliation key={`r-${shown.id}`} upstream={shown} />}
      {testing && <UpstreamTest key={testing.id} upstream={testing} onClose={() => setTesting(null)} />}
      {accountOf && <UpstreamAccountForm key={accountOf.id} upstream={accountOf} onClose={() => setAccountOf(null)} />}
      <UpstreamForm key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />
    </div>
  );
}
