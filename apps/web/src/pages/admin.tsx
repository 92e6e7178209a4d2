import { useQueryClient } from '@tanstack/react-query';
import type { UseTRPCQueryResult } from '@trpc/react-query/shared';
import { useEffect, useState, type FormEvent, type ReactElement } from 'react';
import {
  CODE_MAX_QUANTITY,
  CODE_MIN_CREDITS_GB,
  adminLoginInput,
  createCodesInput,
  formatGb,
  gbBreakdown,
  plural,
  type ADMIN_USER_STATUSES,
} from '@proxyhub/core';
import { AdminAdmins, AdminAuditLog, AdminCodes, AdminOverview, AdminPayments } from '../components/admin-ops';
import { AdminCatalogue } from '../components/admin-catalogue';
import { AdminTelegram } from '../components/telegram-settings';
import { AdminGateways, AdminUpstreams } from '../components/admin-network';
import { AdminUserDetail } from '../components/admin-user-detail';
import { TwoFactorSetup } from '../components/two-factor-setup';
import { TwoFactorStep } from '../components/two-factor-step';
import { Alert, AuthLayout, Brand, Button, Card, CopyButton, Field, FullPageLoading, Spinner } from '../components/ui';
import { errorMessage, isUnauthorized } from '../lib/errors';
import { validate, type FieldErrors } from '../lib/validation';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';

/** The flag only decides what the page shows; the admin session cookie decides what the server allows. */
const ADMIN_FLAG = 'adminLoggedIn';
const readFlag = () => {
  try {
    return sessionStorage.getItem(ADMIN_FLAG) === 'true';
  } catch {
    return false;
  }
};
const writeFlag = (on: boolean) => {
  try {
    if (on) sessionStorage.setItem(ADMIN_FLAG, 'true');
    else sessionStorage.removeItem(ADMIN_FLAG);
  } catch {
    // storage disabled: the page just forgets on reload
  }
};

export function AdminPage() {
  const [loggedIn, setLoggedIn] = useState(readFlag);
  const qc = useQueryClient();

  function signedOut() {
    writeFlag(false);
    // Logout clears the lists too (spec section 4).
    qc.removeQueries({ predicate: (q) => JSON.stringify(q.queryKey).includes('"admin"') });
    setLoggedIn(false);
  }

  if (!loggedIn) {
    return (
      <AdminLogin
        onLoggedIn={() => {
          writeFlag(true);
          setLoggedIn(true);
        }}
      />
    );
  }
  return <AdminPanel onSignedOut={signedOut} />;
}

function AdminLogin({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [values, setValues] = useState({ username: '', password: '' });
  const [errors, setErrors] = useState<FieldErrors<'username' | 'password'>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const login = trpc.admin.login.useMutation();
  const secondFactor = trpc.twoFactor.adminLogin.useMutation();
  const setup = trpc.twoFactor.adminSetup.useMutation();
  const enable = trpc.twoFactor.adminEnable.useMutation();
  // After a right password: the code step, or (ADMIN_REQUIRE_2FA) setting two-factor sign-in up.
  const [step, setStep] = useState<'password' | 'code' | 'setup'>('password');

  function change(field: 'username' | 'password', value: string) {
    setValues((v) => ({ ...v, [field]: value }));
    if (errors[field]) setErrors((e) => ({ ...e, [field]: undefined }));
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setFormError(null);
    const v = validate(adminLoginInput, values);
    if (!v.ok) return setErrors(v.errors);
    try {
      const r = await login.mutateAsync(v.data);
      if (r.success) return onLoggedIn();
      setStep('requiresTwoFactorSetup' in r ? 'setup' : 'code');
    } catch (err) {
      setFormError(isUnauthorized(err) ? errorMessage(err, 'Invalid credentials') : errorMessage(err, 'Login failed', 'Login failed'));
    }
  }

  if (step === 'code') {
    return (
      <TwoFactorStep
        busy={secondFactor.isPending}
        submit={async (code) => {
          await secondFactor.mutateAsync({ code });
          onLoggedIn();
        }}
        onCancel={() => setStep('password')}
      />
    );
  }
  if (step === 'setup') {
    return (
      <AuthLayout>
        <span className="badge badge-dark">Admin</span>
        <h1 className="auth-title">Set up two-factor sign-in</h1>
        <p className="auth-subtitle">Admins here sign in with a second factor. Set it up to continue.</p>
        <TwoFactorSetup setup={() => setup.mutateAsync()} enable={(code) => enable.mutateAsync({ code })} onDone={onLoggedIn} />
      </AuthLayout>
    );
  }

  return (
    <AuthLayout>
      <span className="badge badge-dark">Admin</span>
      <h1 className="auth-title">Admin Login</h1>
      <p className="auth-subtitle">Sign in with your administrator account.</p>
      {formError && <Alert kind="error">{formError}</Alert>}
      <form className="form" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Admin login">
        <Field
          label="Username"
          name="username"
          autoComplete="username"
          value={values.username}
          error={errors.username}
          onChange={(e) => change('username', e.target.value)}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={values.password}
          error={errors.password}
          onChange={(e) => change('password', e.target.value)}
        />
        <Button type="submit" block loading={login.isPending}>
          Sign In
        </Button>
      </form>
    </AuthLayout>
  );
}

type Tab = 'codes' | 'users' | 'code-list' | 'payments' | 'admins' | 'audit' | 'upstreams' | 'gateways' | 'catalogue' | 'telegram';

const MORE_TABS: { id: Tab; label: string }[] = [
  { id: 'code-list', label: 'Codes' },
  { id: 'payments', label: 'Payments' },
  { id: 'admins', label: 'Admins' },
  { id: 'audit', label: 'Audit log' },
  { id: 'upstreams', label: 'Upstreams' },
  { id: 'gateways', label: 'Gateways' },
  { id: 'catalogue', label: 'Catalogue' },
  { id: 'telegram', label: 'Telegram' },
];
const PANELS: Partial<Record<Tab, () => ReactElement>> = {
  'code-list': AdminCodes,
  payments: AdminPayments,
  admins: AdminAdmins,
  audit: AdminAuditLog,
  upstreams: AdminUpstreams,
  gateways: AdminGateways,
  catalogue: AdminCatalogue,
  telegram: AdminTelegram,
};
type AdminUserStatus = (typeof ADMIN_USER_STATUSES)[number];
type Code = RouterOutputs['admin']['createCodes']['codes'][number];

function AdminPanel({ onSignedOut }: { onSignedOut: () => void }) {
  const me = trpc.admin.me.useQuery(undefined, { staleTime: 0 });
  const [tab, setTab] = useState<Tab>(() => (new URLSearchParams(window.location.search).get('user') ? 'users' : 'codes'));
  const [codes, setCodes] = useState<Code[]>([]);
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<AdminUserStatus | ''>('');
  const [page, setPage] = useState(1);
  // One user opened from the list; ?user=<id> links to it.
  const [openUser, setOpenUser] = useState<string | null>(() => new URLSearchParams(window.location.search).get('user'));
  const showUser = (id: string | null) => {
    setOpenUser(id);
    window.history.replaceState(null, '', id ? `/admin?user=${encodeURIComponent(id)}` : '/admin');
  };
  const logout = trpc.admin.logout.useMutation();
  const users = trpc.admin.users.useQuery(
    { q: search.trim() || undefined, status: status || undefined, page, pageSize: 25 },
    { enabled: me.isSuccess, placeholderData: (prev) => prev },
  );
  const usage = trpc.admin.globalUsage.useQuery(undefined, { enabled: me.isSuccess });

  // The server decides: an expired or missing admin session sends the page back to the login.
  const expired = [me.error, users.error, usage.error].some(isUnauthorized);
  useEffect(() => {
    if (expired) onSignedOut();
  }, [expired, onSignedOut]);

  if (me.isPending || expired) return <FullPageLoading />;
  if (me.isError) {
    return (
      <div className="full-page-center">
        <Alert kind="error">{errorMessage(me.error, 'Login failed')}</Alert>
        <Button onClick={() => void me.refetch()}>Try again</Button>
      </div>
    );
  }

  async function onLogout() {
    try {
      await logout.mutateAsync();
    } catch (err) {
      console.error(errorMessage(err, 'Logout failed'));
    }
    setCodes([]);
    onSignedOut();
  }

  const total = users.data?.total;
  const Panel = PANELS[tab];
  return (
    <div className="admin">
      <header className="admin-bar">
        <div className="admin-bar-left">
          <Brand to="/admin" />
          <span className="badge badge-dark">Admin</span>
        </div>
        <div className="admin-bar-right">
          <span className="muted small">
            Signed in as <strong data-testid="admin-username">{me.data.username}</strong>
          </span>
          <Button variant="secondary" onClick={() => void onLogout()} loading={logout.isPending}>
            Logout
          </Button>
        </div>
      </header>
      <main className="admin-main">
        <h1 className="admin-title">Admin Panel</h1>
        <GlobalUsage query={usage} />
        <AdminOverview />
        <div className="tabs" role="tablist" aria-label="Admin sections">
          <button
            type="button"
            role="tab"
            id="tab-codes"
            aria-controls="panel-codes"
            aria-selected={tab === 'codes'}
            className={`tab${tab === 'codes' ? ' active' : ''}`}
            onClick={() => setTab('codes')}
          >
            Generate Codes
          </button>
          <button
            type="button"
            role="tab"
            id="tab-users"
            aria-controls="panel-users"
            aria-selected={tab === 'users'}
            className={`tab${tab === 'users' ? ' active' : ''}`}
            onClick={() => setTab('users')}
          >
            Users ({total ?? '…'})
          </button>
          {MORE_TABS.map((t) => (
            <button
              key={t.id}
              type="button"
              role="tab"
              id={`tab-${t.id}`}
              aria-controls={`panel-${t.id}`}
              aria-selected={tab === t.id}
              className={`tab${tab === t.id ? ' active' : ''}`}
              onClick={() => setTab(t.id)}
            >
              {t.label}
            </button>
          ))}
        </div>
        {Panel ? (
          <section role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
            <Panel />
          </section>
        ) : tab === 'codes' ? (
          <section role="tabpanel" id="panel-codes" aria-labelledby="tab-codes">
            <GenerateCodes codes={codes} onCodes={setCodes} onExpired={onSignedOut} />
          </section>
        ) : (
          <section role="tabpanel" id="panel-users" aria-labelledby="tab-users">
            {openUser ? (
              <AdminUserDetail id={openUser} onBack={() => showUser(null)} />
            ) : (
              <UsersTab
                query={users}
                search={search}
                status={status}
                page={page}
                onSearch={(s) => {
                  setSearch(s);
                  setPage(1);
                }}
                onStatus={(s) => {
                  setStatus(s);
                  setPage(1);
                }}
                onPage={setPage}
                onOpen={showUser}
              />
            )}
          </section>
        )}
      </main>
    </div>
  );
}

const USAGE_LABELS: Record<string, string> = {
  normal_proxy: 'Normal Proxies',
  shop_proxy_regular: 'Shop Proxies (Regular)',
  shop_proxy_admin: 'Shop Proxies (Admin)',
};

const dateTime = (d: Date | null | undefined) => (d ? new Date(d).toLocaleString() : 'Never');

function GlobalUsage({ query }: { query: UseTRPCQueryResult<RouterOutputs['admin']['globalUsage'], unknown> }) {
  const stats = query.data?.stats;
  return (
    <section aria-label="Global usage" className="usage-grid">
      {(stats ?? Object.keys(USAGE_LABELS).map((usage_type) => ({ usage_type, total_bytes: null, total_sessions: null, last_updated: null }))).map((s) => (
        <div className="stat" key={s.usage_type} data-testid={`usage-${s.usage_type}`}>
          <span className="stat-label">{USAGE_LABELS[s.usage_type] ?? s.usage_type}</span>
          <span className="stat-value">{s.total_bytes === null ? <span className="skeleton" /> : `${formatGb(s.total_bytes)} GB`}</span>
          <span className="stat-foot">
            {s.total_sessions === null
              ? '\u00a0'
              : `${plural(s.total_sessions, 'session')} · ${s.last_updated ? `updated ${dateTime(s.last_updated)}` : 'no traffic yet'}`}
          </span>
        </div>
      ))}
      {query.isError && !isUnauthorized(query.error) && <Alert kind="error">{errorMessage(query.error, 'Failed to load usage')}</Alert>}
    </section>
  );
}

function GenerateCodes({ codes, onCodes, onExpired }: { codes: Code[]; onCodes: (c: Code[]) => void; onExpired: () => void }) {
  const [values, setValues] = useState({ creditsGB: '1', quantity: '1', expiresAt: '' });
  const [errors, setErrors] = useState<FieldErrors<'creditsGB' | 'quantity' | 'expiresAt'>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const create = trpc.admin.createCodes.useMutation();
  const utils = trpc.useUtils();

  function change(field: keyof typeof values, value: string) {
    setValues((v) => ({ ...v, [field]: value }));
    if (errors[field]) setErrors((e) => ({ ...e, [field]: undefined }));
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setFormError(null);
    const num = (s: string) => (s.trim() === '' ? undefined : Number(s));
    const input = {
      creditsGB: num(values.creditsGB),
      quantity: num(values.quantity),
      // datetime-local is the admin's local time; empty means no expiry (sent as null).
      expiresAt: values.expiresAt ? new Date(values.expiresAt) : null,
    };
    const v = validate(createCodesInput, input);
    if (!v.ok) return setErrors(v.errors);
    try {
      const r = await create.mutateAsync({ creditsGB: v.data.creditsGB, quantity: v.data.quantity, expiresAt: v.data.expiresAt });
      onCodes(r.codes);
      void utils.admin.users.invalidate();
    } catch (err) {
      if (isUnauthorized(err)) return onExpired();
      setFormError(errorMessage(err, 'Failed to generate codes'));
    }
  }

  const allCodes = codes.map((c) => c.code).join('\n');
  return (
    <div className="grid-2 grid-top">
      <Card title="Generate Top-up Codes" description="Each code credits its amount once, to the first user who redeems it.">
        <form className="form" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Generate codes">
          <div className="grid-2-tight">
            <Field
              label="Credits (GB)"
              name="creditsGB"
              type="number"
              inputMode="decimal"
              min={CODE_MIN_CREDITS_GB}
              step={0.1}
              value={values.creditsGB}
              error={errors.creditsGB}
              hint="At least 0.1 GB, in steps of 0.1"
              onChange={(e) => change('creditsGB', e.target.value)}
            />
            <Field
              label="Quantity"
              name="quantity"
              type="number"
              inputMode="numeric"
              min={1}
              max={CODE_MAX_QUANTITY}
              step={1}
              value={values.quantity}
              error={errors.quantity}
              hint={`1 to ${CODE_MAX_QUANTITY}`}
              onChange={(e) => change('quantity', e.target.value)}
            />
          </div>
          <Field
            label="Expires At (optional)"
            name="expiresAt"
            type="datetime-local"
            value={values.expiresAt}
            error={errors.expiresAt}
            hint="Leave empty for codes that never expire."
            onChange={(e) => change('expiresAt', e.target.value)}
          />
          {formError && <Alert kind="error">{formError}</Alert>}
          <Button type="submit" block loading={create.isPending}>
            Generate Codes
          </Button>
        </form>
      </Card>
      <Card
        title="Generated Codes"
        description={codes.length ? `${codes.length} ${codes.length === 1 ? 'code' : 'codes'} ready to hand out` : 'Codes you generate appear here.'}
        actions={codes.length > 0 && <CopyButton text={allCodes} label="Copy All" ariaLabel="Copy all codes" />}
      >
        {codes.length === 0 ? (
          <div className="empty-state">No codes generated yet.</div>
        ) : (
          <ul className="code-list" data-testid="code-list">
            {codes.map((c) => (
              <li key={c.code}>
                <div>
                  <span className="mono code-value">{c.code}</span>
                  <span className="muted small">
                    {formatGb(c.creditsBytes)} GB{c.expiresAt ? ` · expires ${dateTime(c.expiresAt)}` : ' · no expiry'}
                  </span>
                </div>
                <CopyButton text={c.code} variant="ghost" ariaLabel={`Copy code ${c.code}`} />
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

function UsersTab({
  query,
  search,
  status,
  page,
  onSearch,
  onStatus,
  onPage,
  onOpen,
}: {
  query: UseTRPCQueryResult<RouterOutputs['admin']['users'], unknown>;
  search: string;
  status: AdminUserStatus | '';
  page: number;
  onSearch: (s: string) => void;
  onStatus: (s: AdminUserStatus | '') => void;
  onPage: (p: number) => void;
  onOpen: (id: string) => void;
}) {
  const [draft, setDraft] = useState(search);
  useEffect(() => {
    const t = setTimeout(() => {
      if (draft !== search) onSearch(draft);
    }, 300);
    return () => clearTimeout(t);
  }, [draft, search, onSearch]);

  const data = query.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / 25)) : 1;
  return (
    <Card
      title={`Users (${data?.total ?? '…'})`}
      actions={
        <div className="search">
          <label className="sr-only" htmlFor="user-search">
            Search users
          </label>
          <input id="user-search" type="search" placeholder="Search by email, name or proxy user ID" value={draft} onChange={(e) => setDraft(e.target.value)} />
          <label className="sr-only" htmlFor="user-status">
            Status
          </label>
          <select id="user-status" value={status} onChange={(e) => onStatus(e.target.value as AdminUserStatus | '')}>
            <option value="">All users</option>
            <option value="active">Active</option>
            <option value="unverified">Unverified</option>
            <option value="suspended">Suspended</option>
            <option value="deleted">Deleted</option>
          </select>
          {query.isFetching && <Spinner />}
        </div>
      }
    >
      {query.isError && !isUnauthorized(query.error) && <Alert kind="error">{errorMessage(query.error, 'Failed to load users')}</Alert>}
      <div className="table-wrap">
        <table className="table" data-testid="users-table">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col" className="num">
                Credits
              </th>
              <th scope="col" className="num">
                Usage
              </th>
              <th scope="col">Auth</th>
              <th scope="col">Verified</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {!data && query.isPending && (
              <tr>
                <td colSpan={7} className="table-empty">
                  <Spinner /> Loading users...
                </td>
              </tr>
            )}
            {data?.users.length === 0 && (
              <tr>
                <td colSpan={7} className="table-empty">
                  No users found.
                </td>
              </tr>
            )}
            {data?.users.map((u) => (
              <tr key={u.id}>
                <td data-label="Email" className="cell-strong">
                  <button type="button" className="link-button" onClick={() => onOpen(u.id)}>
                    {u.email}
                  </button>
                  {u.status === 'suspended' && <span className="badge badge-red">Suspended</span>}
                  {u.status === 'deleted' && <span className="badge badge-gray">Deleted</span>}
                </td>
                <td data-label="Name">{u.status === 'deleted' ? <span className="muted">Deleted account</span> : u.name}</td>
                <td data-label="Credits" className="num">
                  {gbBreakdown(u.remainingBytes, u.totalUsageBytes).remaining} GB
                </td>
                <td data-label="Usage" className="num">
                  {gbBreakdown(u.remainingBytes, u.totalUsageBytes).used} GB
                </td>
                <td data-label="Auth">
                  <span className={`badge ${u.authType === 'google' ? 'badge-blue' : 'badge-gray'}`}>{u.authType === 'google' ? 'Google' : 'Email'}</span>
                </td>
                <td data-label="Verified">
                  {u.emailVerified ? <span className="badge badge-green">Verified</span> : <span className="badge badge-amber">Pending</span>}
                </td>
                <td data-label="Created">{new Date(u.createdAt).toLocaleDateString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pages > 1 && (
        <nav className="pager" aria-label="Users pages">
          <Button variant="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
            Previous
          </Button>
          <span className="muted small">
            Page {page} of {pages}
          </span>
          <Button variant="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
            Next
          </Button>
        </nav>
      )}
    </Card>
  );
}
