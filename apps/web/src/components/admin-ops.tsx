/**
 * The admin panel's operations: the 30-day overview (traffic and revenue), every code with its
 * state (revoking unused ones), every order with filters, and the admins (add, disable).
 */
import { useState, type FormEvent } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ADMIN_CODE_STATUSES, ADMIN_ROLES, centsToUsd, createAdminInput, DEFAULT_ADMIN_ROLE, PAYMENT_STATUSES, type AdminRole } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { validate } from '../lib/validation';
import { trpc } from '../trpc';
import { Alert, Button, Card, Field, SelectField, Spinner } from './ui';
import { formatBytes } from '../lib/bytes';
import { UsageChart } from './usage-chart';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

export function AdminOverview() {
  const q = trpc.admin.globalHistory.useQuery(undefined, { staleTime: 0 });
  if (q.isPending) return <Spinner label="Loading the last 30 days..." />;
  if (q.isError) return <Alert kind="error">{errorMessage(q.error, 'Failed to load the last 30 days')}</Alert>;
  const d = q.data;
  const revenue = d.days.map((x) => ({
    label: new Date(x.day).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' }),
    usd: x.revenueCents / 100,
  }));
  return (
    <div className="grid-2" data-testid="admin-overview">
      <Card title="Traffic, last 30 days" description={`${formatBytes(d.totals.bytes)} in 30 days, UTC`}>
        <UsageChart
          points={d.days.map((x) => ({ start: x.day, bytesUp: '0', bytesDown: x.bytes }))}
          granularity="day"
          totalBytes={BigInt(d.totals.bytes)}
          testId="admin-traffic-chart"
        />
        <table className="table" data-testid="admin-by-country">
          <thead>
            <tr>
              <th scope="col">Country</th>
              <th scope="col" className="num">
                Traffic
              </th>
            </tr>
          </thead>
          <tbody>
            {d.byCountry.length === 0 ? (
              <tr>
                <td colSpan={2} className="table-empty">
                  No traffic in 30 days
                </td>
              </tr>
            ) : (
              d.byCountry.map((c) => (
                <tr key={c.country ?? ''}>
                  <td>{c.country ?? 'Unknown'}</td>
                  <td className="num">{formatBytes(c.bytes)}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </Card>
      <Card title="Revenue, last 30 days" description={`$${centsToUsd(d.totals.revenueCents)}: paid crypto orders, and codes redeemed at $0.90/GB`}>
        <div className="usage-chart" data-testid="admin-revenue-chart" data-total-cents={String(d.totals.revenueCents)}>
          <ResponsiveContainer width="100%" height={260}>
            <BarChart data={revenue} margin={{ top: 16, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="label" tick={{ fontSize: 12 }} interval="preserveStartEnd" minTickGap={16} />
              <YAxis tick={{ fontSize: 12 }} width={56} unit=" $" />
              <Tooltip formatter={(v) => `$${Number(v).toFixed(2)}`} />
              <Bar dataKey="usd" name="Revenue" fill="#16a34a" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </Card>
    </div>
  );
}

export function AdminCodes() {
  const [status, setStatus] = useState<(typeof ADMIN_CODE_STATUSES)[number] | ''>('');
  const [q, setQ] = useState('');
  const [error, setError] = useState<string | null>(null);
  const utils = trpc.useUtils();
  const codes = trpc.admin.codes.useQuery({ status: status || undefined, q: q.trim() || undefined, pageSize: 100 }, { placeholderData: (p) => p });
  const revoke = trpc.admin.revokeCode.useMutation();
  async function onRevoke(code: string) {
    if (!window.confirm(`Revoke ${code}? It will no longer redeem.`)) return;
    setError(null);
    try {
      await revoke.mutateAsync({ code });
      await utils.admin.codes.invalidate();
    } catch (err) {
      setError(errorMessage(err, 'Revoking failed'));
    }
  }
  return (
    <Card
      title={`Codes (${codes.data?.total ?? '…'})`}
      actions={
        <div className="search">
          <label className="sr-only" htmlFor="code-search">
            Search codes
          </label>
          <input id="code-search" type="search" placeholder="Code or redeemer email" value={q} onChange={(e) => setQ(e.target.value)} />
          <label className="sr-only" htmlFor="code-status">
            Code status
          </label>
          <select id="code-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
            <option value="">All codes</option>
            {ADMIN_CODE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s[0]!.toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </div>
      }
    >
      {error && <Alert kind="error">{error}</Alert>}
      <div className="table-wrap">
        <table className="table" data-testid="codes-table">
          <thead>
            <tr>
              <th scope="col">Code</th>
              <th scope="col" className="num">
                GB
              </th>
              <th scope="col">State</th>
              <th scope="col">Redeemed by</th>
              <th scope="col">Created</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {codes.data?.codes.map((c) => (
              <tr key={c.code}>
                <td className="mono">{c.code}</td>
                <td className="num">{c.creditsGB.toFixed(2)}</td>
                <td>{c.status}</td>
                <td>{c.redeemedBy ? `${c.redeemedBy.email} · ${when(c.redeemedAt)}` : '—'}</td>
                <td>{when(c.createdAt)}</td>
                <td>
                  {c.status === 'unused' && (
                    <Button variant="secondary" onClick={() => void onRevoke(c.code)} aria-label={`Revoke ${c.code}`}>
                      Revoke
                    </Button>
                  )}
                </td>
              </tr>
            ))}
            {codes.data?.codes.length === 0 && (
              <tr>
                <td colSpan={6} className="table-empty">
                  No codes found.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </Card>
  );
}

export function AdminPayments() {
  const [status, setStatus] = useState<(typeof PAYMENT_STATUSES)[number] | ''>('');
  const [q, setQ] = useState('');
  const payments = trpc.admin.payments.useQuery({ status: status || undefined, q: q.trim() || undefined, pageSize: 100 }, { placeholderData: (p) => p });
  return (
    <Card
      title={`Payments (${payments.data?.total ?? '…'})`}
      actions={
        <div className="search">
          <label className="sr-only" htmlFor="payment-search">
            Search payments
          </label>
          <input id="payment-search" type="search" placeholder="User email or order ID" value={q} onChange={(e) => setQ(e.target.value)} />
          <label className="sr-only" htmlFor="payment-status">
            Payment status
          </label>
          <select id="payment-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
            <option value="">All payments</option>
            {PAYMENT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </div>
      }
    >
      <div className="table-wrap">
        <table className="table" data-testid="payments-table">
          <thead>
            <tr>
              <th scope="col">Order</th>
              <th scope="col">User</th>
              <th scope="col" className="num">
                Amount
              </th>
              <th scope="col">Status</th>
              <th scope="col">History</th>
            </tr>
          </thead>
          <tbody>
            {payments.data?.payments.map((p) => (
              <tr key={p.id}>
                <td className="mono">{p.id.slice(0, 8)}</td>
                <td>{p.userEmail}</td>
                <td className="num">
                  ${centsToUsd(p.priceCents)} · {p.gbAmount} GB
                </td>
                <td>{p.status}</td>
                <td className="small">{p.events.map((e) => `${e.status} ${new Date(e.createdAt).toLocaleTimeString()}`).join(' → ')}</td>
              </tr>
            ))}
            {payments.data?.payments.length === 0 && (
              <tr>
                <td colSpan={5} className="table-empty">
                  No payments found.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </Card>
  );
}

const ROLE_NAMES: Record<AdminRole, string> = { owner: 'Owner', finance: 'Finance', support: 'Support' };
const ROLE_LABELS: Record<AdminRole, string> = {
  owner: 'Owner (everything)',
  finance: 'Finance (payments, overview)',
  support: 'Support (users, codes)',
};

export function AdminAdmins() {
  const utils = trpc.useUtils();
  const admins = trpc.admin.admins.useQuery(undefined, { staleTime: 0 });
  const create = trpc.admin.createAdmin.useMutation();
  const disable = trpc.admin.disableAdmin.useMutation();
  const update = trpc.admin.updateAdmin.useMutation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<AdminRole>(DEFAULT_ADMIN_ROLE);
  const [error, setError] = useState<string | null>(null);
  async function onCreate(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const checked = validate(createAdminInput, { username, password, role });
    if (!checked.ok) return setError(Object.values(checked.errors)[0] ?? 'Invalid input');
    try {
      await create.mutateAsync(checked.data);
      setUsername('');
      setPassword('');
      await utils.admin.admins.invalidate();
    } catch (err) {
      setError(errorMessage(err, 'Adding the admin failed'));
    }
  }
  async function onRole(id: string, next: AdminRole) {
    setError(null);
    try {
      await update.mutateAsync({ id, role: next });
    } catch (err) {
      setError(errorMessage(err, 'Changing the role failed'));
    }
    await utils.admin.admins.invalidate();
  }
  async function onDisable(id: string, name: string) {
    if (!window.confirm(`Disable ${name}? Their sessions end at once.`)) return;
    setError(null);
    try {
      await disable.mutateAsync({ id });
      await utils.admin.admins.invalidate();
    } catch (err) {
      setError(errorMessage(err, 'Disabling failed'));
    }
  }
  return (
    <div className="stack">
      <Card title="Admins">
        {error && <Alert kind="error">{error}</Alert>}
        <div className="table-wrap">
          <table className="table" data-testid="admins-table">
            <thead>
              <tr>
                <th scope="col">Username</th>
                <th scope="col">Role</th>
                <th scope="col">Since</th>
                <th scope="col">State</th>
                <th scope="col" />
              </tr>
            </thead>
            <tbody>
              {admins.data?.admins.map((a) => (
                <tr key={a.id}>
                  <td>{a.username}</td>
                  <td>
                    {a.disabledAt ? (
                      ROLE_NAMES[a.role]
                    ) : (
                      <select aria-label={`Role of ${a.username}`} value={a.role} onChange={(e) => void onRole(a.id, e.target.value as AdminRole)}>
                        {ADMIN_ROLES.map((r) => (
                          <option key={r} value={r}>
                            {ROLE_NAMES[r]}
                          </option>
                        ))}
                      </select>
                    )}
                  </td>
                  <td>{when(a.createdAt)}</td>
                  <td>{a.disabledAt ? `Disabled ${when(a.disabledAt)}` : 'Active'}</td>
                  <td>
                    {!a.disabledAt && (
                      <Button variant="secondary" onClick={() => void onDisable(a.id, a.username)} aria-label={`Disable ${a.username}`}>
                        Disable
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>
      <Card title="Add an admin" description="They sign in at /admin with this username and password.">
        <form onSubmit={(e) => void onCreate(e)} noValidate>
          <Field label="New admin username" value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" />
          <Field label="New admin password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" />
          <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as AdminRole)}>
            {ADMIN_ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </SelectField>
          <Button type="submit" loading={create.isPending}>
            Add admin
          </Button>
        </form>
      </Card>
    </div>
  );
}

export function AdminAuditLog() {
  const [actor, setActor] = useState('');
  const [action, setAction] = useState('');
  const [target, setTarget] = useState('');
  const [page, setPage] = useState(1);
  const log = trpc.admin.auditLog.useQuery(
    { actor: actor.trim() || undefined, action: action.trim() || undefined, target: target.trim() || undefined, page, pageSize: 50 },
    { placeholderData: (p) => p, staleTime: 0 },
  );
  const pages = log.data ? Math.max(1, Math.ceil(log.data.total / 50)) : 1;
  const filter = (set: (v: string) => void) => (e: { target: { value: string } }) => {
    set(e.target.value);
    setPage(1);
  };
  return (
    <Card
      title={`Audit log (${log.data?.total ?? '…'})`}
      description="Every admin action and every change made with the internal key. Nothing edits or deletes it."
    >
      <div className="grid-3">
        <Field label="Actor" placeholder="admin:alice or internal" value={actor} onChange={filter(setActor)} />
        <Field label="Action" placeholder="admin.suspendUser" value={action} onChange={filter(setAction)} />
        <Field label="Target" placeholder="user:<id> or code:<code>" value={target} onChange={filter(setTarget)} />
      </div>
      <div className="table-wrap">
        <table className="table" data-testid="audit-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Actor</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
              <th scope="col">From</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {log.data?.entries.map((e) => (
              <tr key={e.id}>
                <td>{when(e.at)}</td>
                <td>{e.actor}</td>
                <td className="mono">{e.action}</td>
                <td className="mono">{e.target ?? '—'}</td>
                <td>{e.sourceAddress}</td>
                <td>{e.reason ?? '—'}</td>
              </tr>
            ))}
            {log.data?.entries.length === 0 && (
              <tr>
                <td colSpan={6} className="table-empty">
                  Nothing recorded for these filters.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {pages > 1 && (
        <nav className="pager" aria-label="Audit log pages">
          <Button variant="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </Button>
          <span className="muted small">
            Page {page} of {pages}
          </span>
          <Button variant="secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </Button>
        </nav>
      )}
    </Card>
  );
}
