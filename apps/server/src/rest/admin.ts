import {
  adminUserPatchInput,
  targetPolicyInput,
  adjustBalanceInput,
  adminAuditInput,
  adminCodesInput,
  adminIdInput,
  adminLoginInput,
  adminPaymentsInput,
  adminUserInput,
  adminUsersInput,
  bytesToGb,
  createAdminInput,
  gbBreakdown,
  createCodesInput,
  createPromotionInput,
  createPlanInput,
  planIdInput,
  updatePlanInput,
  setPricingInput,
  createUpstreamInput,
  revokeCodeInput,
  setCatalogueInput,
  updatePromotionInput,
  suspendUserInput,
  unsuspendUserInput,
  updateAdminInput,
  updateUpstreamInput,
  testUpstreamInput,
  upstreamIdInput,
} from '@proxyhub/core';
import { RestResponse, restRoute, type Caller } from './rest';

type UserRow = Awaited<ReturnType<Caller['admin']['users']>>['users'][number];
type UsageStat = Awaited<ReturnType<Caller['admin']['globalUsage']>>['stats'][number];

/** The spec's admin user row: GB to two decimals (core's rounding: the two add up to what was bought). */
const specUserRow = (u: UserRow) => {
  const gb = gbBreakdown(u.remainingBytes, u.totalUsageBytes);
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    creditsGB: Number(gb.remaining),
    totalUsageGB: Number(gb.used),
    authType: u.authType,
    emailVerified: u.emailVerified,
    createdAt: u.createdAt,
  };
};

const specUsageStat = (s: UsageStat) => ({
  usage_type: s.usage_type,
  total_gb: bytesToGb(s.total_bytes),
  total_sessions: s.total_sessions,
  last_updated: s.last_updated,
});

/** The largest page the users procedure serves. */
const ALL_USERS_PAGE = 100;

/** The spec's call takes no parameters and lists all users: every page is read (page/pageSize ask for one). */
async function allUsers(caller: Caller, search: string | undefined) {
  const users: UserRow[] = [];
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    const r = await caller.admin.users({ search, page, pageSize: ALL_USERS_PAGE });
    for (const u of r.users) {
      if (seen.has(u.id)) continue;
      seen.add(u.id);
      users.push(u);
    }
    if (r.users.length < ALL_USERS_PAGE) return users;
  }
}

/** The spec's admin paths over the admin router. */
export const adminRoutes = [
  restRoute({ method: 'POST', url: '/auth/admin/login', body: adminLoginInput }, async (caller, input) => {
    const r = await caller.admin.login(input);
    if (r.success) return { success: true };
    // A second factor is owed (or, with ADMIN_REQUIRE_2FA, must be set up) before the session starts.
    const { username: _username, ...pending } = r;
    return pending;
  }),
  restRoute({ method: 'POST', url: '/auth/admin/logout' }, async (caller) => caller.admin.logout()),
  restRoute({ method: 'GET', url: '/auth/admin/me' }, async (caller) => ({ success: true, ...(await caller.admin.me()) })),
  restRoute({ method: 'POST', url: '/admin/codes/create', body: createCodesInput }, async (caller, input) => ({
    success: true,
    ...(await caller.admin.createCodes(input)),
  })),
  restRoute({ method: 'GET', url: '/admin/users', query: adminUsersInput }, async (caller, input) => {
    const { search, q, status, sort, order, page, pageSize } = input ?? {};
    // The spec's call (no parameters, or only the older `search`) lists every user; any of the
    // others asks for one page.
    if ([q, status, sort, order, page, pageSize].every((v) => v === undefined)) {
      const users = await allUsers(caller, search);
      return { success: true, users: users.map(specUserRow), total: users.length };
    }
    const r = await caller.admin.users({ ...input, pageSize: pageSize ?? ALL_USERS_PAGE });
    return { success: true, users: r.users.map(specUserRow), total: r.total, page: r.page, pageSize: r.pageSize };
  }),
  restRoute({ method: 'GET', url: '/admin/usage/global' }, async (caller) => ({
    success: true,
    stats: (await caller.admin.globalUsage()).stats.map(specUsageStat),
  })),
  restRoute({ method: 'GET', url: '/admin/audit-log', query: adminAuditInput }, async (caller, input) => caller.admin.auditLog(input)),
  restRoute({ method: 'GET', url: '/admin/usage/history' }, async (caller) => ({ success: true, ...(await caller.admin.globalHistory()) })),
  restRoute({ method: 'GET', url: '/admin/users/:id', params: adminUserInput }, async (caller, input) => ({
    success: true,
    ...(await caller.admin.user(input)),
  })),
  restRoute({ method: 'POST', url: '/admin/users/:id/suspend', body: suspendUserInput, pathParams: true }, async (caller, input) =>
    caller.admin.suspendUser(input),
  ),
  restRoute({ method: 'POST', url: '/admin/users/:id/unsuspend', body: unsuspendUserInput, pathParams: true }, async (caller, input) =>
    caller.admin.unsuspendUser(input),
  ),
  restRoute({ method: 'POST', url: '/admin/users/:id/adjust', body: adjustBalanceInput, pathParams: true }, async (caller, input) =>
    caller.admin.adjustUserBalance(input),
  ),
  restRoute({ method: 'GET', url: '/admin/payments', query: adminPaymentsInput }, async (caller, input) => ({
    success: true,
    ...(await caller.admin.payments(input)),
  })),
  restRoute({ method: 'GET', url: '/admin/admins' }, async (caller) => ({ success: true, ...(await caller.admin.admins()) })),
  restRoute(
    { method: 'POST', url: '/admin/admins', body: createAdminInput },
    async (caller, input) => new RestResponse(201, await caller.admin.createAdmin(input)),
  ),
  restRoute({ method: 'PATCH', url: '/admin/admins/:id', body: updateAdminInput, pathParams: true }, async (caller, input) => caller.admin.updateAdmin(input)),
  restRoute({ method: 'POST', url: '/admin/admins/:id/disable', body: adminIdInput, pathParams: true }, async (caller, input) =>
    caller.admin.disableAdmin(input),
  ),
  restRoute({ method: 'GET', url: '/admin/codes', query: adminCodesInput }, async (caller, input) => ({ success: true, ...(await caller.admin.codes(input)) })),
  restRoute({ method: 'POST', url: '/admin/codes/:code/revoke', body: revokeCodeInput, pathParams: true }, async (caller, input) =>
    caller.admin.revokeCode(input),
  ),
  restRoute({ method: 'GET', url: '/admin/target-policy' }, async (caller) => caller.admin.targetPolicy()),
  restRoute({ method: 'PUT', url: '/admin/target-policy', body: targetPolicyInput }, async (caller, input) => caller.admin.setTargetPolicy(input)),
  restRoute({ method: 'PATCH', url: '/admin/users/:id', body: adminUserPatchInput, pathParams: true }, async (caller, input) => caller.admin.patchUser(input)),
  restRoute({ method: 'GET', url: '/admin/catalogue' }, async (caller) => caller.admin.catalogue()),
  restRoute({ method: 'PUT', url: '/admin/catalogue', body: setCatalogueInput }, async (caller, input) => caller.admin.setCatalogue(input)),
  restRoute({ method: 'PUT', url: '/admin/pricing', body: setPricingInput }, async (caller, input) => caller.admin.setPricing(input)),
  restRoute({ method: 'POST', url: '/admin/promotions', body: createPromotionInput }, async (caller, input) => caller.admin.createPromotion(input)),
  restRoute({ method: 'GET', url: '/admin/promotions' }, async (caller) => caller.admin.promotions()),
  restRoute({ method: 'PATCH', url: '/admin/promotions/:code', body: updatePromotionInput, pathParams: true }, async (caller, input) =>
    caller.admin.updatePromotion(input),
  ),
  restRoute({ method: 'GET', url: '/admin/upstreams' }, async (caller) => caller.admin.upstreams()),
  restRoute({ method: 'GET', url: '/admin/cost-warnings' }, async (caller) => caller.admin.costWarnings()),
  restRoute(
    { method: 'POST', url: '/admin/upstreams', body: createUpstreamInput },
    async (caller, input) => new RestResponse(201, { success: true, upstream: await caller.admin.createUpstream(input) }),
  ),
  restRoute({ method: 'PATCH', url: '/admin/upstreams/:id', body: updateUpstreamInput, pathParams: true }, async (caller, input) => ({
    success: true,
    upstream: await caller.admin.updateUpstream(input),
  })),
  restRoute({ method: 'DELETE', url: '/admin/upstreams/:id', params: upstreamIdInput }, async (caller, input) => caller.admin.deleteUpstream(input)),
  restRoute({ method: 'POST', url: '/admin/upstreams/:id/test', body: testUpstreamInput, pathParams: true }, async (caller, input) =>
    caller.admin.testUpstream(input),
  ),
  restRoute({ method: 'GET', url: '/admin/upstreams/:id/usage', params: upstreamIdInput }, async (caller, input) => caller.admin.upstreamUsage(input)),
  restRoute({ method: 'GET', url: '/admin/gateways' }, async (caller) => caller.admin.gateways()),
  restRoute({ method: 'GET', url: '/admin/plans' }, async (caller) => caller.admin.plans()),
  restRoute(
    { method: 'POST', url: '/admin/plans', body: createPlanInput },
    async (caller, input) => new RestResponse(201, await caller.admin.createPlan(input)),
  ),
  restRoute({ method: 'PATCH', url: '/admin/plans/:id', body: updatePlanInput, pathParams: true }, async (caller, input) => caller.admin.updatePlan(input)),
  restRoute({ method: 'DELETE', url: '/admin/plans/:id', params: planIdInput }, async (caller, input) => caller.admin.deletePlan(input)),
];
