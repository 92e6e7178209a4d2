import { z } from 'zod';
import {
  adminGlobalUsageOutput,
  adminLoginOutput,
  adminUsersOutput,
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
  adminAdjustUserBalanceOutput,
  adminAdminsOutput,
  adminAuditLogOutput,
  adminCatalogueOutput,
  adminCodesOutput,
  adminCostWarningsOutput,
  adminCreateAdminOutput,
  adminCreateCodesOutput,
  adminCreatePlanOutput,
  adminCreatePromotionOutput,
  adminCreateUpstreamOutput,
  adminDeletePlanOutput,
  adminDeleteUpstreamOutput,
  adminDisableAdminOutput,
  adminGatewaysOutput,
  adminGlobalHistoryOutput,
  adminLogoutOutput,
  adminMeOutput,
  adminPatchUserOutput,
  adminPaymentsOutput,
  adminPlansOutput,
  adminPromotionsOutput,
  adminRevokeCodeOutput,
  adminSetCatalogueOutput,
  adminSetPricingOutput,
  adminSetTargetPolicyOutput,
  adminSuspendUserOutput,
  adminTargetPolicyOutput,
  adminTestUpstreamOutput,
  adminUnsuspendUserOutput,
  adminUpdateAdminOutput,
  adminUpdatePlanOutput,
  adminUpdatePromotionOutput,
  adminUpdateUpstreamOutput,
  adminUpstreamUsageOutput,
  adminUpstreamsOutput,
  adminUserOutput,
} from '@proxyhub/core';
import { RestResponse, restRoute, SUCCESS, type Caller, withSuccess } from './rest';

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

/** The spec's user row, in GB. */
const specUserRowSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  creditsGB: z.number(),
  totalUsageGB: z.number(),
  authType: adminUsersOutput.shape.users.element.shape.authType,
  emailVerified: z.boolean(),
  createdAt: z.date(),
});

/** Every user (the spec's call), or one page when any paging or filter parameter is given. */
const adminUsersAnswer = z.object({
  success: z.literal(true),
  users: z.array(specUserRowSchema),
  total: z.number(),
  page: z.number().optional(),
  pageSize: z.number().optional(),
});

const adminGlobalUsageAnswer = z.object({
  success: z.literal(true),
  stats: z.array(
    z.object({
      usage_type: adminGlobalUsageOutput.shape.stats.element.shape.usage_type,
      total_gb: z.number(),
      total_sessions: z.number(),
      last_updated: z.date().nullable(),
    }),
  ),
});

/** Signed in (`{ success: true }`), or a second factor (or its setup) is owed: the procedure's answer without the username. */
const adminLoginAnswer = z.union([SUCCESS, adminLoginOutput.options[0].omit({ username: true }), adminLoginOutput.options[1].omit({ username: true })]);

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
  restRoute(
    {
      method: 'POST',
      url: '/auth/admin/login',
      summary: 'Admin sign-in; a second factor (or its setup) may be owed before the session starts.',
      response: adminLoginAnswer,
      body: adminLoginInput,
    },
    async (caller, input) => {
      const r = await caller.admin.login(input);
      if (r.success) return { success: true as const };
      // A second factor is owed (or, with ADMIN_REQUIRE_2FA, must be set up) before the session starts.
      const { username: _username, ...pending } = r;
      return pending;
    },
  ),
  restRoute({ method: 'POST', url: '/auth/admin/logout', summary: 'Admin sign-out.', response: adminLogoutOutput }, async (caller) => caller.admin.logout()),
  restRoute(
    { method: 'GET', url: '/auth/admin/me', summary: 'The signed-in admin: username, role and two-factor state.', response: withSuccess(adminMeOutput) },
    async (caller) => ({ success: true, ...(await caller.admin.me()) }),
  ),
  restRoute(
    { method: 'POST', url: '/admin/codes/create', summary: 'Creates credit codes.', response: withSuccess(adminCreateCodesOutput), body: createCodesInput },
    async (caller, input) => ({
      success: true,
      ...(await caller.admin.createCodes(input)),
    }),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/admin/users',
      summary: 'Users with balance and usage in GB; every user, or one page with page, pageSize, q, status or sort.',
      response: adminUsersAnswer,
      query: adminUsersInput,
    },
    async (caller, input) => {
      const { search, q, status, sort, order, page, pageSize } = input ?? {};
      // The spec's call (no parameters, or only the older `search`) lists every user; any of the
      // others asks for one page.
      if ([q, status, sort, order, page, pageSize].every((v) => v === undefined)) {
        const users = await allUsers(caller, search);
        return { success: true as const, users: users.map(specUserRow), total: users.length };
      }
      const r = await caller.admin.users({ ...input, pageSize: pageSize ?? ALL_USERS_PAGE });
      return { success: true as const, users: r.users.map(specUserRow), total: r.total, page: r.page, pageSize: r.pageSize };
    },
  ),
  restRoute({ method: 'GET', url: '/admin/usage/global', summary: 'Traffic by usage type, in GB.', response: adminGlobalUsageAnswer }, async (caller) => ({
    success: true as const,
    stats: (await caller.admin.globalUsage()).stats.map(specUsageStat),
  })),
  restRoute(
    {
      method: 'GET',
      url: '/admin/audit-log',
      summary: 'The admin audit log: who changed what, newest first.',
      response: adminAuditLogOutput,
      query: adminAuditInput,
    },
    async (caller, input) => caller.admin.auditLog(input),
  ),
  restRoute(
    { method: 'GET', url: '/admin/usage/history', summary: 'Traffic over time for the whole service.', response: withSuccess(adminGlobalHistoryOutput) },
    async (caller) => ({ success: true, ...(await caller.admin.globalHistory()) }),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/admin/users/:id',
      summary: 'One user: profile, balance, proxy accounts, payments and usage.',
      response: withSuccess(adminUserOutput),
      params: adminUserInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.admin.user(input)),
    }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/admin/users/:id/suspend',
      summary: 'Suspends a user: sign-in and traffic stop at once.',
      response: adminSuspendUserOutput,
      body: suspendUserInput,
      pathParams: true,
    },
    async (caller, input) => caller.admin.suspendUser(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/admin/users/:id/unsuspend',
      summary: `Lifts a user's suspension.`,
      response: adminUnsuspendUserOutput,
      body: unsuspendUserInput,
      pathParams: true,
    },
    async (caller, input) => caller.admin.unsuspendUser(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/admin/users/:id/adjust',
      summary: `Adds to or takes from a user's balance, with a reason.`,
      response: adminAdjustUserBalanceOutput,
      body: adjustBalanceInput,
      pathParams: true,
    },
    async (caller, input) => caller.admin.adjustUserBalance(input),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/admin/payments',
      summary: 'Payments of every user, newest first.',
      response: withSuccess(adminPaymentsOutput),
      query: adminPaymentsInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.admin.payments(input)),
    }),
  ),
  restRoute({ method: 'GET', url: '/admin/admins', summary: 'The admins and their roles.', response: withSuccess(adminAdminsOutput) }, async (caller) => ({
    success: true,
    ...(await caller.admin.admins()),
  })),
  restRoute(
    { method: 'POST', url: '/admin/admins', summary: 'Creates an admin with a role.', response: adminCreateAdminOutput, status: 201, body: createAdminInput },
    async (caller, input) => new RestResponse(201, await caller.admin.createAdmin(input)),
  ),
  restRoute(
    {
      method: 'PATCH',
      url: '/admin/admins/:id',
      summary: `Changes an admin's role or password.`,
      response: adminUpdateAdminOutput,
      body: updateAdminInput,
      pathParams: true,
    },
    async (caller, input) => caller.admin.updateAdmin(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/admin/admins/:id/disable',
      summary: 'Disables an admin; their sessions end at once.',
      response: adminDisableAdminOutput,
      body: adminIdInput,
      pathParams: true,
    },
    async (caller, input) => caller.admin.disableAdmin(input),
  ),
  restRoute(
    { method: 'GET', url: '/admin/codes', summary: 'Credit codes and their states.', response: withSuccess(adminCodesOutput), query: adminCodesInput },
    async (caller, input) => ({ success: true, ...(await caller.admin.codes(input)) }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/admin/codes/:code/revoke',
      summary: 'Revokes an unredeemed credit code.',
      response: adminRevokeCodeOutput,
      body: revokeCodeInput,
      pathParams: true,
    },
    async (caller, input) => caller.admin.revokeCode(input),
  ),
  restRoute(
    { method: 'GET', url: '/admin/target-policy', summary: 'The service-wide target policy (hosts no customer may reach).', response: adminTargetPolicyOutput },
    async (caller) => caller.admin.targetPolicy(),
  ),
  restRoute(
    {
      method: 'PUT',
      url: '/admin/target-policy',
      summary: 'Sets the service-wide target policy.',
      response: adminSetTargetPolicyOutput,
      body: targetPolicyInput,
    },
    async (caller, input) => caller.admin.setTargetPolicy(input),
  ),
  restRoute(
    {
      method: 'PATCH',
      url: '/admin/users/:id',
      summary: `Changes a user's name, email, verification or price.`,
      response: adminPatchUserOutput,
      body: adminUserPatchInput,
      pathParams: true,
    },
    async (caller, input) => caller.admin.patchUser(input),
  ),
  restRoute(
    { method: 'GET', url: '/admin/catalogue', summary: 'The countries on sale and the choices for them.', response: adminCatalogueOutput },
    async (caller) => caller.admin.catalogue(),
  ),
  restRoute(
    { method: 'PUT', url: '/admin/catalogue', summary: 'Sets the countries on sale.', response: adminSetCatalogueOutput, body: setCatalogueInput },
    async (caller, input) => caller.admin.setCatalogue(input),
  ),
  restRoute(
    {
      method: 'PUT',
      url: '/admin/pricing',
      summary: 'Sets the price per GB, volume tiers and minimum order.',
      response: adminSetPricingOutput,
      body: setPricingInput,
    },
    async (caller, input) => caller.admin.setPricing(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/admin/promotions',
      summary: 'Creates a promotion code (a bonus on orders).',
      response: adminCreatePromotionOutput,
      body: createPromotionInput,
    },
    async (caller, input) => caller.admin.createPromotion(input),
  ),
  restRoute({ method: 'GET', url: '/admin/promotions', summary: 'Promotion codes and their use.', response: adminPromotionsOutput }, async (caller) =>
    caller.admin.promotions(),
  ),
  restRoute(
    {
      method: 'PATCH',
      url: '/admin/promotions/:code',
      summary: 'Changes or ends a promotion code.',
      response: adminUpdatePromotionOutput,
      body: updatePromotionInput,
      pathParams: true,
    },
    async (caller, input) => caller.admin.updatePromotion(input),
  ),
  restRoute({ method: 'GET', url: '/admin/upstreams', summary: 'The upstream providers and their state.', response: adminUpstreamsOutput }, async (caller) =>
    caller.admin.upstreams(),
  ),
  restRoute(
    { method: 'GET', url: '/admin/cost-warnings', summary: 'Upstreams whose cost per GB is at or above the price.', response: adminCostWarningsOutput },
    async (caller) => caller.admin.costWarnings(),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/admin/upstreams',
      summary: 'Adds an upstream provider.',
      response: z.object({ success: z.literal(true), upstream: adminCreateUpstreamOutput }),
      status: 201,
      body: createUpstreamInput,
    },
    async (caller, input) => new RestResponse(201, { success: true, upstream: await caller.admin.createUpstream(input) }),
  ),
  restRoute(
    {
      method: 'PATCH',
      url: '/admin/upstreams/:id',
      summary: 'Changes an upstream provider.',
      response: z.object({ success: z.literal(true), upstream: adminUpdateUpstreamOutput }),
      body: updateUpstreamInput,
      pathParams: true,
    },
    async (caller, input) => ({
      success: true as const,
      upstream: await caller.admin.updateUpstream(input),
    }),
  ),
  restRoute(
    { method: 'DELETE', url: '/admin/upstreams/:id', summary: 'Removes an upstream provider.', response: adminDeleteUpstreamOutput, params: upstreamIdInput },
    async (caller, input) => caller.admin.deleteUpstream(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/admin/upstreams/:id/test',
      summary: 'Tests an upstream provider through a real connection.',
      response: adminTestUpstreamOutput,
      body: testUpstreamInput,
      pathParams: true,
    },
    async (caller, input) => caller.admin.testUpstream(input),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/admin/upstreams/:id/usage',
      summary: `An upstream's traffic and quality per day.`,
      response: adminUpstreamUsageOutput,
      params: upstreamIdInput,
    },
    async (caller, input) => caller.admin.upstreamUsage(input),
  ),
  restRoute(
    { method: 'GET', url: '/admin/gateways', summary: 'The gateways reporting to this server and their state.', response: adminGatewaysOutput },
    async (caller) => caller.admin.gateways(),
  ),
  restRoute({ method: 'GET', url: '/admin/plans', summary: 'Every plan, on sale or not.', response: adminPlansOutput }, async (caller) => caller.admin.plans()),
  restRoute(
    { method: 'POST', url: '/admin/plans', summary: 'Creates a plan.', response: adminCreatePlanOutput, status: 201, body: createPlanInput },
    async (caller, input) => new RestResponse(201, await caller.admin.createPlan(input)),
  ),
  restRoute(
    { method: 'PATCH', url: '/admin/plans/:id', summary: 'Changes a plan.', response: adminUpdatePlanOutput, body: updatePlanInput, pathParams: true },
    async (caller, input) => caller.admin.updatePlan(input),
  ),
  restRoute(
    {
      method: 'DELETE',
      url: '/admin/plans/:id',
      summary: 'Deletes a plan (or takes it off sale when it has subscribers).',
      response: adminDeletePlanOutput,
      params: planIdInput,
    },
    async (caller, input) => caller.admin.deletePlan(input),
  ),
];
