/**
 * The admin panel's network: upstream pools (list with 30 days of usage, cost, revenue and margin;
 * one pool's days; add from a provider preset, edit, test, disable, delete) and the gateway fleet
 * from its heartbeats.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm, type Resolver } from 'react-hook-form';
import {
  centsToUsd,
  createUpstreamInput,
  DEFAULT_UPSTREAM_CHECK_URL,
  updateUpstreamInput,
  UPSTREAM_PRESETS,
  UPSTREAM_PROTOCOL_OPTIONS,
  usdToCents,
  type CreateUpstreamInput,
  type UpdateUpstreamInput,
} from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { Alert, Button, Card, Field, SelectField, Spinner } from './ui';
import { formatBytes } from '../lib/bytes';
import { DataTable, type Column } from './data-table';
import { accountColumns, UpstreamAccountForm } from './admin/upstream-account';
import { UpstreamReconciliation } from './admin/upstream-reconciliation';

type Upstream = RouterOutputs['admin']['upstreams']['upstreams'][number];

const usd = (cents: number) => `${cents < 0 ? '-' : ''}$${centsToUsd(Math.abs(cents))}`;
const when = (iso: string) => new Date(iso).toLocaleString();

/** What the inputs hold: text as typed; the resolver turns it into the schema's input. */
interface FormValues {
  name: string;
  protocol: (typeof UPSTREAM_PROTOCOL_OPTIONS)[number];
  host: string;
  port: string;
  usernameTemplate: string;
  passwordTemplate: string;
  password: string;
  countries: string;
  weight: string;
  /** In dollars as typed; the API takes cents. */
  costPerGbCents: string;
  maxSessionMinutes: string;
  enabled: 'enabled' | 'disabled';
}

const EMPTY: FormValues = {
  name: '',
  protocol: 'http',
  host: '',
  port: '',
  usernameTemplate: '',
  passwordTemplate: '',
  password: '',
  countries: '',
  weight: '1',
  costPerGbCents: '0.00',
  maxSessionMinutes: '',
  enabled: 'disabled',
};

const valuesOf = (u: Upstream): FormValues => ({
  name: u.name,
  protocol: u.protocol,
  host: u.host,
  port: String(u.port),
  usernameTemplate: u.usernameTemplate,
  passwordTemplate: u.passwordTemplate,
  password: '',
  countries: u.countries?.join(', ') ?? '',
  weight: String(u.weight),
  costPerGbCents: centsToUsd(u.costPerGbCents),
  maxSessionMinutes: u.maxSessionMinutes === null ? '' : String(u.maxSessionMinutes),
  enabled: u.enabled ? 'enabled' : 'disabled',
});

/** The form's text as the schema's input: numbers as numbers, "US, DE" as a list, empty as all. */
const inputOf = (v: FormValues) => ({
  name: v.name,
  protocol: v.protocol,
  host: v.host,
  port: v.port.trim() === '' ? NaN : Number(v.port),
  usernameTemplate: v.usernameTemplate,
  passwordTemplate: v.passwordTemplate,
  countries: v.countries.trim() ? v.countries.split(/[\s,]+/).filter(Boolean) : null,
  weight: Number(v.weight),
  costPerGbCents: usdToCents(v.costPerGbCents),
  maxSessionMinutes: v.maxSessionMinutes.trim() === '' ? null : Number(v.maxSessionMinutes),
});

/**
 * The procedure's own core schema on the form's values reshaped: the messages are the server's,
 * each under its field. Editing, an empty password keeps the stored one.
 */
function upstreamResolver(editing: Upstream | null): Resolver<FormValues, unknown, CreateUpstreamInput | UpdateUpstreamInput> {
  return (values, context, options) => {
    const input = inputOf(values);
    if (editing) {
      // The state goes only when the admin changed it: the row opened may predate an Enable pressed a
      // moment before, and saving a price must not switch the upstream back off.
      const enabled = values.enabled === 'enabled';
      const body = {
        id: editing.id,
        ...input,
        ...(enabled !== editing.enabled ? { enabled } : {}),
        ...(values.password ? { password: values.password } : {}),
      };
      return zodResolver(updateUpstreamInput)(body, context, options as never) as never;
    }
    // A new upstream is always saved disabled (the schema's default): enabled from its row after a Test.
    return zodResolver(createUpstreamInput)({ ...input, password: values.password }, context, options as never) as never;
  };
}

const PLACEHOLDER_HINT =
  'Placeholders {country} {state} {city} {session} {sid} {minutes} {seconds}; filters |name |lower |upper |snake |compact |plus; [ ... ] is left out when a placeholder in it is empty.';

function UpstreamForm({ editing, onDone }: { editing: Upstream | null; onDone: () => void }) {
  const form = useForm<FormValues, unknown, CreateUpstreamInput | UpdateUpstreamInput>({
    resolver: upstreamResolver(editing),
    defaultValues: editing ? valuesOf(editing) : EMPTY,
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
  });
  const [preset, setPreset] = useState('custom');
  const utils = trpc.useUtils();
  const create = trpc.admin.createUpstream.useMutation();
  const update = trpc.admin.updateUpstream.useMutation();
  const errors = form.formState.errors;
  const field = (name: keyof FormValues) => ({ ...form.register(name, { onChange: () => form.clearErrors(name) }), error: errors[name]?.message });
  /** A preset fills the endpoint and both templates; the admin then fills in the account part. */
  function applyPreset(id: string) {
    setPreset(id);
    const p = UPSTREAM_PRESETS.find((x) => x.id === id);
    if (!p) return;
    if (!form.getValues('name')) form.setValue('name', p.label);
    form.setValue('protocol', p.protocol);
    form.setValue('host', p.host);
    form.setValue('port', String(p.port));
    form.setValue('usernameTemplate', p.usernameTemplate);
    form.setValue('passwordTemplate', p.passwordTemplate);
    form.setValue('maxSessionMinutes', p.maxSessionMinutes === null ? '' : String(p.maxSessionMinutes));
    form.clearErrors();
  }
  const chosen = UPSTREAM_PRESETS.find((x) => x.id === preset);
  const onValid = async (data: CreateUpstreamInput | UpdateUpstreamInput) => {
    try {
      if (editing) await update.mutateAsync(data as UpdateUpstreamInput);
      else await create.mutateAsync(data as CreateUpstreamInput);
      form.reset(EMPTY);
      setPreset('custom');
      await utils.admin.upstreams.invalidate();
      onDone();
    } catch (err) {
      form.setError('root', { message: errorMessage(err, 'Saving the upstream failed') });
    }
  };
  return (
    <Card title={editing ? `Edit ${editing.name}` : 'Add an upstream'} description={PLACEHOLDER_HINT}>
      <form onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate data-testid="upstream-form">
        {errors.root?.message && <Alert kind="error">{errors.root.message}</Alert>}
        {!editing && (
          <SelectField
            label="Provider preset"
            value={preset}
            onChange={(e) => applyPreset(e.target.value)}
            hint={chosen ? `Replace ${chosen.account} with your account's; from ${chosen.docs[0]}` : 'Any provider: write both templates yourself.'}
          >
            <option value="custom">Custom</option>
            {UPSTREAM_PRESETS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </SelectField>
        )}
        <div className="grid-3">
          <Field label="Name" autoComplete="off" {...field('name')} />
          <SelectField label="Protocol" {...field('protocol')}>
            {UPSTREAM_PROTOCOL_OPTIONS.map((p) => (
              <option key={p} value={p}>
                {p === 'http' ? 'HTTP (CONNECT)' : 'SOCKS5'}
              </option>
            ))}
          </SelectField>
          <Field label="Host" autoComplete="off" {...field('host')} />
          <Field label="Port" inputMode="numeric" {...field('port')} />
          <Field label="Username template" placeholder="cust-{country}-sess-{sid}" autoComplete="off" {...field('usernameTemplate')} />
          <Field
            label="Password template"
            placeholder="{password}[_session-{sid}]"
            hint="Empty: the password as it is"
            autoComplete="off"
            {...field('passwordTemplate')}
          />
          <Field label="Password" type="password" placeholder={editing?.hasPassword ? 'Unchanged' : ''} autoComplete="new-password" {...field('password')} />
          <Field label="Countries" hint="Codes like US, DE; empty for all" {...field('countries')} />
          <Field label="Weight" inputMode="numeric" {...field('weight')} />
          <Field label="Cost per GB ($)" inputMode="decimal" {...field('costPerGbCents')} />
          <Field
            label="Longest session (minutes)"
            inputMode="numeric"
            hint={
              chosen?.sessionDocs ? `The provider's longest, from ${chosen.sessionDocs}; empty for none` : 'Longer lines are sent with this; empty for none'
            }
            {...field('maxSessionMinutes')}
          />
        </div>
        {editing ? (
          <SelectField label="State" {...field('enabled')}>
            <option value="enabled">Enabled</option>
            <option value="disabled">Disabled</option>
          </SelectField>
        ) : (
          <p className="muted small" data-testid="upstream-saved-disabled">
            A new upstream is saved disabled: press Test on its row, and Enable it once the test works.
          </p>
        )}
        <div style={{ display: 'flex', gap: 8 }}>
          <Button type="submit" loading={create.isPending || update.isPending}>
            {editing ? 'Save upstream' : 'Add upstream'}
          </Button>
          {editing && (
            <Button variant="secondary" onClick={onDone}>
              Cancel
            </Button>
          )}
        </div>
      </form>
    </Card>
  );
}

type TestAnswer = RouterOutputs['admin']['testUpstream'];

/** One tunnel through the upstream as a line for this place would go, and the page it fetched. */
function UpstreamTest({ upstream, onClose }: { upstream: Upstream; onClose: () => void }) {
  const [place, setPlace] = useState({ country: 'US', state: '', city: '', minutes: '10', url: '' });
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
          <SelectField label="Session" value={place.minutes} onChange={set('minutes')}>
            <option value="0">Rotating (new IP per connection)</option>
            <option value="10">Sticky, 10 minutes</option>
            <option value="60">Sticky, 60 minutes</option>
          </SelectField>
          <Field label="Check URL" hint="Empty: the server's check page" placeholder={DEFAULT_UPSTREAM_CHECK_URL} value={place.url} onChange={set('url')} />
        </div>
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
      description={`Per UTC day: cost at the pool's price per GB, revenue at what paid orders brought in per GB${q.data ? ` ($${centsToUsd(q.data.soldPricePerGbCents)})` : ''}.`}
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
const DAY_COLUMNS: Column<Day>[] = [{ head: 'Day', cell: (d) => d.day }, ...usageColumns<Day>((d) => d)];

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

type Gateway = RouterOutputs['admin']['gateways']['gateways'][number];
const GATEWAY_COLUMNS: Column<Gateway>[] = [
  { head: 'Gateway', className: 'mono', cell: (g) => g.id },
  { head: 'Status', cell: (g) => <span className={`badge ${g.status === 'up' ? 'badge-green' : 'badge-red'}`}>{g.status === 'up' ? 'Up' : 'Down'}</span> },
  { head: 'Version', cell: (g) => g.version },
  { head: 'Started', cell: (g) => when(g.startedAt) },
  { head: 'Last seen', cell: (g) => when(g.lastSeenAt) },
  { head: 'Tunnels', num: true, cell: (g) => g.openTunnels },
  { head: 'Up /s', num: true, cell: (g) => formatBytes(String(g.bytesPerSecUp)) },
  { head: 'Down /s', num: true, cell: (g) => formatBytes(String(g.bytesPerSecDown)) },
  { head: 'Leased', num: true, cell: (g) => formatBytes(String(g.leasedBytes)) },
  { head: 'Upstream errors', num: true, cell: (g) => g.upstreamErrors },
];

export function AdminGateways() {
  const q = trpc.admin.gateways.useQuery(undefined, { staleTime: 0, refetchInterval: 10_000 });
  return (
    <Card
      title={`Gateways (${q.data?.gateways.length ?? '…'})`}
      description="From their heartbeats (every 10 s); one silent for 60 s is down and its leases are settled."
    >
      {q.isError && <Alert kind="error">{errorMessage(q.error, 'Failed to load gateways')}</Alert>}
      <DataTable
        testId="gateways-table"
        columns={GATEWAY_COLUMNS}
        rows={q.data?.gateways}
        rowKey={(g) => g.id}
        rowProps={(g) => ({ 'data-gateway': g.id })}
        empty="No gateway has reported yet."
      />
    </Card>
  );
}
