import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { roleMayUse, type AdminArea } from '@proxyhub/core';
import { AdminAbuse } from '../components/admin/abuse';
import { AdminAdmins } from '../components/admin/admins';
import { AdminAlerts, useAdminAlerts } from '../components/admin/alerts';
import { AdminAuditLog } from '../components/admin/audit-log';
import { AdminCatalogue } from '../components/admin/catalogue';
import { AdminCodes } from '../components/admin/codes';
import { AdminGateways } from '../components/admin/gateways';
import { GenerateCodes } from '../components/admin/generate-codes';
import { AdminLogin } from '../components/admin/login';
import { AdminOverview, GlobalUsage } from '../components/admin/overview';
import { CostWarnings } from '../components/admin/cost-warnings';
import { AdminPayments } from '../components/admin/payments';
import { AdminPricing } from '../components/admin/pricing-tab';
import { AdminPromotions } from '../components/admin/promotions-tab';
import { AdminPlans } from '../components/admin/plans-tab';
import { SellerWarning } from '../components/admin/seller-warning';
import { AdminSite } from '../components/admin/site-tab';
import type { AdminShared, AdminTab, GeneratedCode } from '../components/admin/tab';
import { AdminTargetPolicy } from '../components/admin/target-policy';
import { AdminUpstreams } from '../components/admin/upstreams';
import { TabStrip } from '../components/tab-strip';
import { UsersTab } from '../components/admin/users';
import { useUsersList } from '../components/admin/users-list';
import { AdminTelegram } from '../components/admin/telegram';
import { LanguagePicker } from '../components/language-picker';
import { Alert, Brand, Button, FullPageLoading } from '../components/ui';
import { errorMessage, isUnauthorized } from '../lib/errors';
import { trpc } from '../trpc';
import { usePageTitle } from '../lib/page-title';

/**
 * The panel's tabs, in order; a new tab is one line here and a module of its own. `area`: a role
 * sees only the tabs of its areas (core's ADMIN_AREA_ROLES; the server refuses the rest anyway).
 */
const TABS: Array<AdminTab & { area: AdminArea }> = [
  { id: 'codes', area: 'codes', label: (t) => t('tabs.codes'), Panel: GenerateCodes },
  { id: 'users', area: 'users', label: (t, s) => t('tabs.users', { total: s.users.query.data?.total ?? '…' }), Panel: UsersTab },
  { id: 'abuse', area: 'users', label: (t) => t('tabs.abuse'), Panel: AdminAbuse },
  { id: 'code-list', area: 'codes', label: (t) => t('tabs.codeList'), Panel: AdminCodes },
  { id: 'payments', area: 'payments', label: (t) => t('tabs.payments'), Panel: AdminPayments },
  { id: 'promotions', area: 'promotions', label: (t) => t('tabs.promotions'), Panel: AdminPromotions },
  { id: 'plans', area: 'plans', label: (t) => t('tabs.plans'), Panel: AdminPlans },
  { id: 'pricing', area: 'pricing', label: (t) => t('tabs.pricing'), Panel: AdminPricing },
  { id: 'admins', area: 'admins', label: (t) => t('tabs.admins'), Panel: AdminAdmins },
  { id: 'audit', area: 'audit', label: (t) => t('tabs.audit'), Panel: AdminAuditLog },
  { id: 'upstreams', area: 'network', label: (t) => t('tabs.upstreams'), Panel: AdminUpstreams },
  { id: 'alerts', area: 'alerts', label: (t, s) => t('tabs.alerts', { open: s.alerts?.openCount ?? '…' }), Panel: AdminAlerts },
  { id: 'gateways', area: 'network', label: (t) => t('tabs.gateways'), Panel: AdminGateways },
  { id: 'catalogue', area: 'catalogue', label: (t) => t('tabs.catalogue'), Panel: AdminCatalogue },
  { id: 'telegram', area: 'telegram', label: (t) => t('tabs.telegram'), Panel: AdminTelegram },
  { id: 'target-policy', area: 'policy', label: (t) => t('tabs.targetPolicy'), Panel: AdminTargetPolicy },
  { id: 'site', area: 'site', label: (t) => t('tabs.site'), Panel: AdminSite },
];

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
  const { t } = useTranslation('admin');
  usePageTitle(t('panel.pageTitle'));
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
      <CookieCheck
        onValid={() => {
          writeFlag(true);
          setLoggedIn(true);
        }}
      >
        <AdminLogin
          onLoggedIn={() => {
            writeFlag(true);
            setLoggedIn(true);
          }}
        />
      </CookieCheck>
    );
  }
  return <AdminPanel onSignedOut={signedOut} />;
}

/**
 * A new tab starts without the session-storage flag: the admin session cookie may still be valid
 * (the server decides), so it is asked once before the login form is shown; valid, the flag is set.
 */
function CookieCheck({ onValid, children }: { onValid: () => void; children: ReactNode }) {
  const me = trpc.admin.me.useQuery(undefined, { retry: false, staleTime: 0 });
  useEffect(() => {
    if (me.isSuccess) onValid();
  }, [me.isSuccess, onValid]);
  if (me.isPending || me.isSuccess) return <FullPageLoading />;
  return <>{children}</>;
}

function AdminPanel({ onSignedOut }: { onSignedOut: () => void }) {
  const { t } = useTranslation('admin');
  const me = trpc.admin.me.useQuery(undefined, { staleTime: 0 });
  const may = (area: AdminArea) => !!me.data && roleMayUse(me.data.role, area);
  const [tab, setTab] = useState(() => (new URLSearchParams(window.location.search).get('user') ? 'users' : 'codes'));
  const [codes, setCodes] = useState<GeneratedCode[]>([]);
  const users = useUsersList(may('users'));
  const alerts = useAdminAlerts(may('alerts'));
  const logout = trpc.admin.logout.useMutation();
  const usage = trpc.admin.globalUsage.useQuery(undefined, { enabled: may('overview') });

  // The server decides: an expired or missing admin session sends the page back to the login.
  const expired = [me.error, users.query.error, usage.error].some(isUnauthorized);
  useEffect(() => {
    if (expired) onSignedOut();
  }, [expired, onSignedOut]);

  if (me.isPending || expired) return <FullPageLoading />;
  if (me.isError) {
    return (
      <div className="full-page-center">
        <Alert kind="error">{errorMessage(me.error, t('panel.loginFailed'))}</Alert>
        <Button onClick={() => void me.refetch()}>{t('panel.tryAgain')}</Button>
      </div>
    );
  }

  async function onLogout() {
    try {
      await logout.mutateAsync();
    } catch (err) {
      console.error(errorMessage(err, t('panel.logoutFailed')));
    }
    setCodes([]);
    onSignedOut();
  }

  const shared: AdminShared = { users, codes: { list: codes, set: setCodes }, onSignedOut, alerts: alerts.data };
  const tabs = TABS.filter((tab) => may(tab.area));
  // A role without the chosen tab (finance has no code generator) starts on its first one.
  const current = tabs.find((x) => x.id === tab) ?? tabs[0]!;
  const { Panel } = current;
  return (
    <div className="admin">
      <header className="admin-bar">
        <div className="admin-bar-left">
          <Brand to="/admin" />
          <span className="badge badge-dark">{t('panel.badge')}</span>
        </div>
        <div className="admin-bar-right">
          <LanguagePicker />
          <span className="muted small">
            {t('panel.signedInAs')} <strong data-testid="admin-username">{me.data.username}</strong>
          </span>
          <Button variant="secondary" onClick={() => void onLogout()} loading={logout.isPending}>
            {t('panel.logout')}
          </Button>
        </div>
      </header>
      <main className="admin-main" id="main">
        <h1 className="admin-title">{t('panel.title')}</h1>
        {may('overview') && (
          <>
            <SellerWarning />
            <CostWarnings />
            <GlobalUsage query={usage} />
            <AdminOverview />
          </>
        )}
        <TabStrip label={t('panel.sections')} tabs={tabs.map((tab) => ({ id: tab.id, label: tab.label(t, shared) }))} current={current.id} onSelect={setTab} />
        <section role="tabpanel" id={`panel-${current.id}`} aria-labelledby={`tab-${current.id}`}>
          <Panel key={current.id} shared={shared} />
        </section>
      </main>
    </div>
  );
}
