/**
 * The admin panel's network: upstream pools (list with 30 days of usage, cost, revenue and margin;
 * one pool's days; add, edit, disable, delete) and the gateway fleet from its heartbeats.
 */
import { useState, type FormEvent } from 'react';
import { centsToUsd, createUpstreamInput, updateUpstreamInput, UPSTREAM_PROTOCOL_OPTIONS } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { validate } from '../lib/validation';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { Alert, Button, Card, Field, SelectField, Spinner } from './ui';
import { formatBytes } from '../lib/bytes';
import { DataTable, type Column } from './data-table';

type Upstream = RouterOutputs['admin']['upstreams']['upstreams'][number];

const usd = (cents: number) => `${cents < 0 ? '-' : ''}$${centsToUsd(Math.abs(cents))}`;
const when = (iso: string) => new Date(iso).toLocaleString();

interface FormValues {
  name: string;
  protocol: (typeof UPSTREAM_PROTOCOL_OPTIONS)[number];
  host: string;
  port: string;
  usernameTemplate: string;
  password: string;
  countries: string;
  weight: string;
  costPerGbCents: string;
  enabled: boolean;
}

const EMPTY: FormValues = {
  name: '',
  protocol: 'http',
  host: '',
  port: '',
  usernameTemplate: '',
  password: '',
  countries: '',
  weight: '1',
  costPerGbCents: '0',
  enabled: true,
};

const valuesOf = (u: Upstream): FormValues => ({
  name: u.name,
  protocol: u.protocol,
  host: u.host,
  port: String(u.port),
  usernameTemplate: u.usernameTemplate,
  password: '',
  countries: u.countries?.join(', ') ?? '',
  weight: String(u.weight),
  costPerGbCents: String(u.costPerGbCents),
  enabled: u.enabled,
});

/** The form's text as the schema's input: numbers as numbers, "US, DE" as a list, empty as all. */
const inputOf = (v: FormValues) => ({
  name: v.name,
  protocol: v.protocol,
  host: v.host,
  port: v.port.trim() === '' ? NaN : Number(v.port),
  usernameTemplate: v.usernameTemplate,
  countries: v.countries.trim() ? v.countries.split(/[\s,]+/).filter(Boolean) : null,
  weight: Number(v.weight),
  costPerGbCents: Number(v.costPerGbCents),
  enabled: v.enabled,
});

function UpstreamForm({ editing, onDone }: { editing: Upstream | null; onDone: () => void }) {
  const [v, setV] = useState<FormValues>(editing ? valuesOf(editing) : EMPTY);
  const [error, setError] = useState<string | null>(null);
  const utils = trpc.useUtils();
  const create = trpc.admin.createUpstream.useMutation();
  const update = trpc.admin.updateUpstream.useMutation();
  const set = (k: keyof FormValues) => (e: { target: { value: string } }) => setV({ ...v, [k]: e.target.value });
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    // An empty password field keeps the stored one when editing.
    const password = v.password || editing ? { password: v.password || undefined } : {};
    const checked = editing
      ? validate(updateUpstreamInput, { id: editing.id, ...inputOf(v), ...password })
      : validate(createUpstreamInput, { ...inputOf(v), ...password });
    if (!checked.ok) return setError(Object.values(checked.errors)[0] ?? 'Invalid input');
    try {
      if (editing) await update.mutateAsync(checked.data as Parameters<typeof update.mutateAsync>[0]);
      else await create.mutateAsync(checked.data as Parameters<typeof create.mutateAsync>[0]);
      setV(EMPTY);
      await utils.admin.upstreams.invalidate();
      onDone();
    } catch (err) {
      setError(errorMessage(err, 'Saving the upstream failed'));
    }
  }
  return (
    <Card
      title={editing ? `Edit ${editing.name}` : 'Add an upstream'}
      description="Placeholders in the username: {country} {state} {city} {session} {minutes}."
    >
      <form onSubmit={(e) => void onSubmit(e)} noValidate data-testid="upstream-form">
        {error && <Alert kind="error">{error}</Alert>}
        <div className="grid-3">
          <Field label="Name" value={v.name} onChange={set('name')} autoComplete="off" />
          <SelectField label="Protocol" value={v.protocol} onChange={set('protocol')}>
            {UPSTREAM_PROTOCOL_OPTIONS.map((p) => (
              <option key={p} value={p}>
                {p === 'http' ? 'HTTP (CONNECT)' : 'SOCKS5'}
              </option>
            ))}
          </SelectField>
          <Field label="Host" value={v.host} onChange={set('host')} autoComplete="off" />
          <Field label="Port" inputMode="numeric" value={v.port} onChange={set('port')} />
          <Field
            label="Username template"
            placeholder="cust-{country}-sess-{session}"
            value={v.usernameTemplate}
            onChange={set('usernameTemplate')}
            autoComplete="off"
          />
          <Field
            label="Password"
            type="password"
            placeholder={editing?.hasPassword ? 'Unchanged' : ''}
            value={v.password}
            onChange={set('password')}
            autoComplete="new-password"
          />
          <Field label="Countries" hint="Codes like US, DE; empty for all" value={v.countries} onChange={set('countries')} />
          <Field label="Weight" inputMode="numeric" value={v.weight} onChange={set('weight')} />
          <Field label="Cost per GB (cents)" inputMode="numeric" value={v.costPerGbCents} onChange={set('costPerGbCents')} />
        </div>
        <SelectField label="State" value={v.enabled ? 'enabled' : 'disabled'} onChange={(e) => setV({ ...v, enabled: e.target.value === 'enabled' })}>
          <option value="enabled">Enabled</option>
          <option value="disabled">Disabled</option>
        </SelectField>
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

function UpstreamDays({ upstream }: { upstream: Upstream }) {
  const q = trpc.admin.upstreamUsage.useQuery({ id: upstream.id }, { staleTime: 0 });
  return (
    <Card title={`${upstream.name}: last 30 days`} description="Per UTC day: cost at the pool's price per GB, revenue at $0.90/GB.">
      {q.isPending ? (
        <Spinner label="Loading..." />
      ) : q.isError ? (
        <Alert kind="error">{errorMessage(q.error, 'Failed to load the days')}</Alert>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="upstream-days">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <UsageFigureHeads />
              </tr>
            </thead>
            <tbody>
              {q.data.days.map((d) => (
                <tr key={d.day}>
                  <td>{d.day}</td>
                  <UsageFigureCells figures={d} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

/** Traffic, cost, revenue and margin: the columns of the per-upstream and the per-day tables. */
function UsageFigureHeads() {
  return (
    <>
      {['Traffic', 'Cost', 'Revenue', 'Margin'].map((h) => (
        <th key={h} scope="col" className="num">
          {h}
        </th>
      ))}
    </>
  );
}

function UsageFigureCells({ figures }: { figures: { bytes: number | string | bigint; costCents: number; revenueCents: number; marginCents: number } }) {
  return (
    <>
      <td className="num">{formatBytes(String(figures.bytes))}</td>
      <td className="num">{usd(figures.costCents)}</td>
      <td className="num">{usd(figures.revenueCents)}</td>
      <td className="num">{usd(figures.marginCents)}</td>
    </>
  );
}

export function AdminUpstreams() {
  const q = trpc.admin.upstreams.useQuery(undefined, { staleTime: 0 });
  const utils = trpc.useUtils();
  const update = trpc.admin.updateUpstream.useMutation();
  const remove = trpc.admin.deleteUpstream.useMutation();
  const [editing, setEditing] = useState<Upstream | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
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
  return (
    <div className="stack">
      <Card
        title={`Upstreams (${q.data ? list.length : '…'})`}
        description="Residential pools traffic leaves through. Usage, cost, revenue and margin over the last 30 days."
      >
        {error && <Alert kind="error">{error}</Alert>}
        {q.isError && <Alert kind="error">{errorMessage(q.error, 'Failed to load upstreams')}</Alert>}
        <div className="table-wrap">
          <table className="table" data-testid="upstreams-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Countries</th>
                <th scope="col" className="num">
                  Weight
                </th>
                <th scope="col">State</th>
                <UsageFigureHeads />
                <th scope="col" />
              </tr>
            </thead>
            <tbody>
              {list.map((u) => (
                <tr key={u.id} data-upstream={u.name}>
                  <td>
                    <button type="button" className="link-button" onClick={() => setSelected(u.id)}>
                      {u.name}
                    </button>
                  </td>
                  <td className="mono">
                    {u.protocol}://{u.host}:{u.port}
                  </td>
                  <td>{u.countries?.join(', ') ?? 'All'}</td>
                  <td className="num">{u.weight}</td>
                  <td>{u.enabled ? 'Enabled' : 'Disabled'}</td>
                  <UsageFigureCells figures={u.usage} />
                  <td style={{ display: 'flex', gap: 6 }}>
                    <Button variant="secondary" onClick={() => setEditing(u)}>
                      Edit
                    </Button>
                    <Button variant="secondary" onClick={() => void run('Saving', () => update.mutateAsync({ id: u.id, enabled: !u.enabled }))}>
                      {u.enabled ? 'Disable' : 'Enable'}
                    </Button>
                    <Button variant="danger" onClick={() => onDelete(u)}>
                      Delete
                    </Button>
                  </td>
                </tr>
              ))}
              {q.data && list.length === 0 && (
                <tr>
                  <td colSpan={10} className="table-empty">
                    No upstreams: gateways use GATEWAY_UPSTREAM_URL, or leave directly.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </Card>
      {shown && <UpstreamDays key={shown.id} upstream={shown} />}
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
