/**
 * The admin panel's upstream pools: the list with 30 days of usage, cost, revenue and margin; one
 * pool's days and reconciliation; test, enable or disable, delete; the form to add or edit one.
 */
import { useState } from 'react';
import { centsToUsd, DEFAULT_UPSTREAM_CHECK_URL } from '@proxyhub/core';
import { formatBytes } from '../../lib/bytes';
import { errorMessage } from '../../lib/errors';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { formatConnectMs, formatOkRate, qualityColumns } from '../connection-quality';
import { DataTable, type Column } from '../data-table';
import { Alert, Button, Card, Field, SelectField, Spinner } from '../ui';
import { accountColumns, UpstreamAccountForm } from './upstream-account';
import { UpstreamForm } from './upstream-form';
import { UpstreamReconciliation } from './upstream-reconciliation';

type Upstream = RouterOutputs['admin']['upstreams']['upstreams'][number];

const usd = (cents: number) => `${cents < 0 ? '-' : ''}$${centsToUsd(Math.abs(cents))}`;

type TestAnswer = RouterOutputs['admin']['testUpstream'];

/** One tunnel through the upstream as a line for this place would go, and the page it fetched. */
function UpstreamTest({ upstream, onClose }: { upstream: Upstream; onClose: () => void }) {
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
      setError(errorMessage(err, 'The test failed'));
    }
  }
  return (
    <Card title={`Test ${upstream.name}`} description="Opens one tunnel exactly as a customer's line would, and fetches the check page through it. Not billed.">
      <div data-testid="upstream-test">
        <div className="grid-3">
          <Field label="Country" value={place.country} onChange={set('country')} />
          <Field label="State" hint="A code like CA; optional" value={place.state} onChange={set('state')} />
          <Field label="City" hint="A code like LOSANGELES; optional" value={place.city} onChange={set('city')} />
          <Field label="ZIP / postal code" hint="As a line's ~z; optional" value={place.zip} onChange={set('zip')} />
          <Field label="ASN" hint="As a line's ~a, digits; optional" value={place.asn} onChange={set('asn')} />
          <SelectField label="Session" value={place.minutes} onChange={set('minutes')}>
            <option value="0">Rotating (new IP per connection)</option>
            <option value="10">Sticky, 10 minutes</option>
            <option value="60">Sticky, 60 minutes</option>
          </SelectField>
          <Field label="Check URL" hint="Empty: the server's check page" placeholder={DEFAULT_UPSTREAM_CHECK_URL} value={place.url} onChange={set('url')} />
        </div>
        <label className="check">
          <input type="checkbox" checked={hard} onChange={(e) => setHard(e.target.checked)} />
          <span>Keep the same IP or fail</span>
        </label>
        <div style={{ display: 'flex', gap: 8 }}>
          <Button onClick={() => void run()} loading={test.isPending}>
            Run test
          </Button>
          <Button variant="secondary" onClick={onClose}>
            Close
          </Button>
        </div>
        {error && <Alert kind="error">{error}</Alert>}
        {answer && (
          <div data-testid="upstream-test-answer">
            <Alert kind={answer.ok ? 'success' : 'error'}>
              {answer.ok ? `OK: ${answer.status} in ${answer.latencyMs} ms` : `Failed after ${answer.latencyMs} ms. ${answer.reason}`}
            </Alert>
            {!answer.ok && (
              // The words as the upstream or the TLS library said them, for the provider's support.
              <details data-testid="upstream-test-details">
                <summary>Details</summary>
                <pre className="mono">{answer.error}</pre>
              </details>
            )}
            <p>
              Username sent: <span className="mono">{answer.username}</span>
            </p>
            {answer.body && <pre className="mono">{answer.body}</pre>}
          </div>
        )}
      </div>
    </Card>
  );
}

function UpstreamDays({ upstream }: { upstream: Upstream }) {
  const q = trpc.admin.upstreamUsage.useQuery({ id: upstream.id }, { staleTime: 0 });
  return (
    <Card
      title={`${upstream.name}: last 30 days`}
      description={`Per UTC day: cost at the pool's price per GB, revenue at what paid orders brought in per GB${q.data ? ` ($${centsToUsd(q.data.soldPricePerGbCents)})` : ''}; the share of its connections that ended ok and their median connect time${q.data ? ` (30 days: ${formatOkRate(q.data.quality.okRate)}, ${formatConnectMs(q.data.quality.p50ConnectMs)})` : ''}.`}
    >
      {q.isPending ? (
        <Spinner label="Loading..." />
      ) : q.isError ? (
        <Alert kind="error">{errorMessage(q.error, 'Failed to load the days')}</Alert>
      ) : (
        <DataTable testId="upstream-days" columns={DAY_COLUMNS} rows={q.data.days} rowKey={(d) => d.day} empty={null} />
      )}
    </Card>
  );
}

/** Traffic, cost, revenue and margin: the columns of the per-upstream and the per-day tables. */
function usageColumns<T>(figures: (row: T) => UsageFigures): Column<T>[] {
  return [
    { head: 'Traffic', num: true, cell: (r) => formatBytes(String(figures(r).bytes)) },
    { head: 'Cost', num: true, cell: (r) => usd(figures(r).costCents) },
    { head: 'Revenue', num: true, cell: (r) => usd(figures(r).revenueCents) },
    { head: 'Margin', num: true, cell: (r) => usd(figures(r).marginCents) },
  ];
}

type UsageFigures = { bytes: number | string | bigint; costCents: number; revenueCents: number; marginCents: number };
type Day = RouterOutputs['admin']['upstreamUsage']['days'][number];
const DAY_COLUMNS: Column<Day>[] = [{ head: 'Day', cell: (d) => d.day }, ...usageColumns<Day>((d) => d), ...qualityColumns<Day>((d) => d)];

function upstreamColumns(select: (id: string) => void): Column<Upstream>[] {
  return [
    {
      head: 'Name',
      cell: (u) => (
        <>
          <button type="button" className="link-button" onClick={() => select(u.id)}>
            {u.name}
          </button>
          {u.costWarning && (
            <div className="field-error" role="note" data-testid="upstream-cost-warning">
              {u.costWarning}
            </div>
          )}
        </>
      ),
    },
    { head: 'Endpoint', className: 'mono', cell: (u) => `${u.protocol}://${u.host}:${u.port}` },
    { head: 'Countries', cell: (u) => u.countries?.join(', ') ?? 'All' },
    { head: 'Weight', num: true, cell: (u) => u.weight },
    { head: 'State', cell: (u) => (u.enabled ? 'Enabled' : 'Disabled') },
    ...usageColumns<Upstream>((u) => u.usage),
    ...accountColumns,
  ];
}

export function AdminUpstreams() {
  const q = trpc.admin.upstreams.useQuery(undefined, { staleTime: 0 });
  const utils = trpc.useUtils();
  const update = trpc.admin.updateUpstream.useMutation();
  const remove = trpc.admin.deleteUpstream.useMutation();
  const [editing, setEditing] = useState<Upstream | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [testing, setTesting] = useState<Upstream | null>(null);
  const [accountOf, setAccountOf] = useState<Upstream | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function run(what: string, f: () => Promise<unknown>) {
    setError(null);
    try {
      await f();
      await utils.admin.upstreams.invalidate();
    } catch (err) {
      setError(errorMessage(err, `${what} failed`));
    }
  }
  const onDelete = (u: Upstream) => {
    if (!window.confirm(`Delete ${u.name}? Gateways stop using it within 30 seconds.`)) return;
    if (selected === u.id) setSelected(null);
    void run('Deleting', () => remove.mutateAsync({ id: u.id }));
  };
  const list = q.data?.upstreams ?? [];
  const shown = list.find((u) => u.id === selected) ?? null;
  const actionsCell = (u: Upstream) => (
    <div style={{ display: 'flex', gap: 6 }}>
      <Button variant="secondary" onClick={() => setEditing(u)}>
        Edit
      </Button>
      <Button variant="secondary" onClick={() => setTesting(u)}>
        Test
      </Button>
      <Button variant="secondary" onClick={() => setAccountOf(u)}>
        Account
      </Button>
      <Button variant="secondary" onClick={() => void run('Saving', () => update.mutateAsync({ id: u.id, enabled: !u.enabled }))}>
        {u.enabled ? 'Disable' : 'Enable'}
      </Button>
      <Button variant="danger" onClick={() => onDelete(u)}>
        Delete
      </Button>
    </div>
  );
  return (
    <div className="stack">
      <Card
        title={`Upstreams (${q.data ? list.length : '…'})`}
        description="Residential pools traffic leaves through. Usage, cost, revenue and margin over the last 30 days."
      >
        {error && <Alert kind="error">{error}</Alert>}
        {q.isError && <Alert kind="error">{errorMessage(q.error, 'Failed to load upstreams')}</Alert>}
        <DataTable
          testId="upstreams-table"
          columns={[...upstreamColumns(setSelected), { head: '', cell: actionsCell }]}
          rows={q.data?.upstreams}
          rowKey={(u) => u.id}
          rowProps={(u) => ({ 'data-upstream': u.name })}
          empty="No upstreams: gateways use GATEWAY_UPSTREAM_URL, or leave directly."
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
