import type { TRPCRouterRecord } from '@trpc/server';
import {
  abuseLookupInput,
  adminConnectionsInput,
  adjustBalanceInput,
  adminAuditInput,
  adminCodesInput,
  adminIdInput,
  adminLoginInput,
  adminPaymentsInput,
  adminUserInput,
  adminUserPatchInput,
  targetPolicyInput,
  adminUsersInput,
  createAdminInput,
  createCodesInput,
  createPromotionInput,
  setPricingInput,
  setUserPriceInput,
  createUpstreamInput,
  DomainError,
  NOT_ALLOWED_FOR_ROLE,
  SUPPORT_ADJUST_LIMIT_GB,
  updateAdminInput,
  updatePromotionInput,
  revokeCodeInput,
  setCatalogueInput,
  suspendUserInput,
  unsuspendUserInput,
  updateUpstreamInput,
  testUpstreamInput,
  DEFAULT_UPSTREAM_CHECK_URL,
  upstreamIdInput,
} from '@proxyhub/core';
import { endSession, startSession } from '../context';
import type { ApiConfig } from '../config';
import { inBackground, kickTelegram } from '../deps';
import { adminTelegramProcedures } from './telegram';
import { upstreamReconciliationProcedures } from './upstream-reconciliation';
import { adminLogin } from '../services/admin/admin-sign-in';
import { allConnections, listConnections } from '../services/connection-log/reads';
import { abuseLookup } from '../services/admin/abuse-lookup';
import { mailTemplates } from '../mail';
import { createAdmin, disableAdmin, listAdmins, updateAdminRole } from '../services/admin/admins';
import { adminOverview } from '../services/admin/overview';
import { listCodes, revokeCode } from '../services/admin/topup-code-list';
import { adjustBalance, adminUserDetail, suspendUser, unsuspendUser } from '../services/admin/user-admin';
import { listAudit, recordAudit } from '../services/admin/audit-log';
import { checkBalanceAlerts } from '../services/notify/balance-alerts';
import { createCodes } from '../services/money/topup-codes';
import { listAllPayments } from '../services/money/payments';
import { createPromotion, listPromotions, setPromotionEnabled } from '../services/money/promotions';
import { patchUser, setPricing, setUserPrice } from '../services/money/pricing';
import { globalUsage, listUsers } from '../services/admin/user-list';
import { listGateways } from '../services/gateway/gateway-fleet';
import { getCatalogue, setCatalogue } from '../services/network/catalogue';
import { getTargetPolicy, setTargetPolicy } from '../services/network/target-policy';
import { datasetCountries } from '../services/network/locations';
import { costWarnings, createUpstream, deleteUpstream, listUpstreams, updateUpstream, upstreamDailyUsage } from '../services/network/upstreams';
import { testUpstream } from '../services/network/upstream-test';
import { signInLimited } from '../limits';
import { actorOf, adminOrInternalProcedure, financeProcedure, publicProcedure, staffProcedure, supportProcedure } from '../trpc';
import { twoFactorEnabled } from '../services/accounts/two-factor';
import { owePendingSecondFactor } from './two-factor';

/** Private upstream hosts: allowed only where the config says so (absent: tests and development). */
const upstreamPolicy = (config: ApiConfig) => ({ allowPrivate: config.upstreams?.allowPrivate ?? true });

export const adminRouter = {
  login: publicProcedure
    .input(adminLoginInput)
    .use(signInLimited('adminLogin', (input: { username: string }) => input.username))
    .mutation(async ({ ctx, input }) => {
      let signedIn: Awaited<ReturnType<typeof adminLogin>>;
      try {
        signedIn = await adminLogin(ctx.db, input);
      } catch (err) {
        await recordAudit(ctx.db, actorOf(ctx), { action: 'admin.login.failed', target: `admin:${input.username}` });
        throw err;
      }
      const { adminId, username } = signedIn;
      const account = { kind: 'admin' as const, id: adminId };
      // The password was right; the session waits for the second factor (or, when admins must
      // have one, for its setup).
      if (await twoFactorEnabled(ctx.db, account)) {
        await owePendingSecondFactor(ctx, account);
        return { success: false as const, requiresTwoFactor: true, username };
      }
      if (ctx.deps.config.adminRequire2fa) {
        await owePendingSecondFactor(ctx, account);
        return { success: false as const, requiresTwoFactorSetup: true, username };
      }
      await startSession(ctx, 'admin', adminId);
      await recordAudit(ctx.db, { ...actorOf(ctx), actor: `admin:${username}`, adminId }, { action: 'admin.login', target: `admin:${username}` });
      return { success: true as const, username };
    }),
  logout: publicProcedure.mutation(async ({ ctx }) => {
    await endSession(ctx, 'admin');
    return { success: true as const };
  }),
  /** UNAUTHORIZED whenever there is no admin session, a user session or not: the panel shows its login. */
  me: publicProcedure.query(({ ctx }) => {
    if (!ctx.admin) throw new DomainError('UNAUTHORIZED', 'Admin login required');
    return { username: ctx.admin.username, role: ctx.admin.role };
  }),
  createCodes: supportProcedure.input(createCodesInput).mutation(async ({ ctx, input }) => ({
    codes: await ctx.db.transaction((tx) =>
      createCodes(tx, {
        creditsGB: input.creditsGB,
        quantity: input.quantity,
        expiresAt: input.expiresAt,
        createdByAdminId: ctx.admin?.id ?? null,
        createdBy: ctx.admin ? `admin:${ctx.admin.username}` : 'internal',
        capGB: ctx.admin?.role === 'support' ? SUPPORT_ADJUST_LIMIT_GB : undefined,
      }),
    ),
  })),
  users: staffProcedure.input(adminUsersInput).query(({ ctx, input }) => listUsers(ctx.db, input ?? {})),
  globalUsage: financeProcedure.query(({ ctx }) => globalUsage(ctx.db)),
  /** Multi-use codes: credit (redeemed like a code) or bonus (more GB on a crypto top-up). */
  createPromotion: financeProcedure.input(createPromotionInput).mutation(async ({ ctx, input }) => ({
    success: true as const,
    promotion: await ctx.db.transaction((tx) =>
      createPromotion(tx, {
        ...input,
        createdByAdminId: ctx.admin?.id ?? null,
        createdBy: ctx.admin ? `admin:${ctx.admin.username}` : 'internal',
      }),
    ),
  })),
  promotions: financeProcedure.query(({ ctx }) => listPromotions(ctx.db)),
  /** `enabled: false` stops a promotion at once. */
  updatePromotion: financeProcedure.input(updatePromotionInput).mutation(async ({ ctx, input }) => ({
    success: true as const,
    promotion: await ctx.db.transaction((tx) => setPromotionEnabled(tx, input)),
  })),
  /** The price list every crypto order is priced from. */
  setPricing: financeProcedure.input(setPricingInput).mutation(async ({ ctx, input }) => ({
    success: true as const,
    pricing: await ctx.db.transaction((tx) => setPricing(tx, input)),
  })),
  /** One user's own rate (cents per GB), or null for the price list's. */
  setUserPrice: financeProcedure.input(setUserPriceInput).mutation(async ({ ctx, input }) => ({
    success: true as const,
    user: await ctx.db.transaction((tx) => setUserPrice(tx, input)),
  })),
  /** PATCH /admin/users/:id: the user's own rate (finance) and target policy exemption (owners only). */
  patchUser: financeProcedure.input(adminUserPatchInput).mutation(async ({ ctx, input }) => {
    if (input.targetPolicyExempt !== undefined && ctx.admin && ctx.admin.role !== 'owner') {
      throw new DomainError('FORBIDDEN', NOT_ALLOWED_FOR_ROLE);
    }
    return { success: true as const, user: await ctx.db.transaction((tx) => patchUser(tx, input)) };
  }),
  /** Codes with their state and redeemer, by state and by code or redeemer email. */
  codes: supportProcedure.input(adminCodesInput).query(({ ctx, input }) => listCodes(ctx.db, input ?? {})),
  /** Withdraws an unused code: it then redeems as an unknown one. */
  revokeCode: supportProcedure.input(revokeCodeInput).mutation(async ({ ctx, input }) => ({
    success: true as const,
    ...(await ctx.db.transaction((tx) => revokeCode(tx, input.code))),
  })),
  admins: adminOrInternalProcedure.query(({ ctx }) => listAdmins(ctx.db)),
  createAdmin: adminOrInternalProcedure.input(createAdminInput).mutation(async ({ ctx, input }) => ({
    success: true as const,
    admin: await createAdmin(ctx.db, input),
  })),
  /** A new role, from the admin's next request; the last active owner stays one. */
  updateAdmin: adminOrInternalProcedure.input(updateAdminInput).mutation(async ({ ctx, input }) => ({
    success: true as const,
    admin: await ctx.db.transaction((tx) => updateAdminRole(tx, input)),
  })),
  /** Its sessions end at once; the last active admin cannot be disabled. */
  disableAdmin: adminOrInternalProcedure.input(adminIdInput).mutation(async ({ ctx, input }) => {
    const admin = await ctx.db.transaction((tx) => disableAdmin(tx, input.id));
    await ctx.deps.sessions.admin.endAll(admin.id);
    return { success: true as const, admin };
  }),
  /** The last 30 days: traffic by day and by country, revenue by day (crypto paid, codes at list price). */
  globalHistory: financeProcedure.query(({ ctx }) => adminOverview(ctx.db)),
  payments: financeProcedure.input(adminPaymentsInput).query(({ ctx, input }) => listAllPayments(ctx.db, input ?? {})),
  /** One user in full: profile, balances, proxy accounts, billing, 30 days of usage, sessions. */
  user: staffProcedure.input(adminUserInput).query(({ ctx, input }) => adminUserDetail(ctx.db, input.id)),
  /** One user's connection log (same filters and pages as theirs). */
  userConnections: staffProcedure.input(adminConnectionsInput).query(({ ctx, input }) => {
    const { id, ...filters } = input;
    return listConnections(ctx.db, id, filters);
  }),
  /** Connections that hit a host or left through an exit IP, with their customers (abuse reports). */
  abuseLookup: staffProcedure.input(abuseLookupInput).query(({ ctx, input }) => abuseLookup(ctx.db, input)),
  userConnectionsAll: staffProcedure.input(adminConnectionsInput).query(({ ctx, input }) => {
    const { id, ...filters } = input;
    return allConnections(ctx.db, id, filters);
  }),
  /** Sign-in, sessions, API key and proxy credentials stop; the reason goes to the audit log (and to the customer with notifyCustomer). */
  suspendUser: supportProcedure.input(suspendUserInput).mutation(async ({ ctx, input }) => {
    const { suspendedAt, email } = await ctx.db.transaction((tx) => suspendUser(tx, input.id));
    kickTelegram(ctx.deps);
    if (input.notifyCustomer) {
      const mail = mailTemplates.accountSuspended(email, `${ctx.deps.config.publicUrl}/acceptable-use`, input.reason);
      inBackground(ctx.deps, 'suspension mail', () => ctx.deps.mailer.send(mail));
    }
    return { success: true as const, suspendedAt: suspendedAt.toISOString() };
  }),
  unsuspendUser: supportProcedure.input(unsuspendUserInput).mutation(async ({ ctx, input }) => {
    await ctx.db.transaction((tx) => unsuspendUser(tx, input.id));
    kickTelegram(ctx.deps);
    return { success: true as const };
  }),
  /** A balance correction with a reason: one ledger entry naming the admin. */
  adjustUserBalance: supportProcedure.input(adjustBalanceInput).mutation(async ({ ctx, input }) => {
    if (ctx.admin?.role === 'support' && Math.abs(input.deltaGB) > SUPPORT_ADJUST_LIMIT_GB) throw new DomainError('FORBIDDEN', NOT_ALLOWED_FOR_ROLE);
    const r = await ctx.db.transaction((tx) => adjustBalance(tx, { ...input, actor: actorOf(ctx).actor }));
    // A correction can cross the user's low-balance threshold either way.
    inBackground(ctx.deps, 'balance alerts', () => checkBalanceAlerts(ctx.db, ctx.deps, [input.id], ctx.deps.logger));
    return { success: true as const, ...r };
  }),
  /** Upstream pools with their last 30 days of usage, cost, revenue and margin (passwords never). */
  upstreams: adminOrInternalProcedure.query(({ ctx }) => listUpstreams(ctx.db)),
  /** Pools that cost more per GB than a GB is sold for (the overview's and the Pricing tab's warnings). */
  costWarnings: adminOrInternalProcedure.query(({ ctx }) => costWarnings(ctx.db)),
  /** One upstream's usage per UTC day over the last 30 days. */
  upstreamUsage: adminOrInternalProcedure.input(upstreamIdInput).query(({ ctx, input }) => upstreamDailyUsage(ctx.db, input.id)),
  createUpstream: adminOrInternalProcedure
    .input(createUpstreamInput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => createUpstream(tx, ctx.deps.secrets, input, upstreamPolicy(ctx.deps.config)))),
  updateUpstream: adminOrInternalProcedure
    .input(updateUpstreamInput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => updateUpstream(tx, ctx.deps.secrets, input, upstreamPolicy(ctx.deps.config)))),
  /** One tunnel through the upstream as a customer's line would go, and one page fetched through it (not billed). */
  testUpstream: adminOrInternalProcedure.input(testUpstreamInput).mutation(({ ctx, input }) =>
    testUpstream(ctx.db, ctx.deps.secrets, input, {
      ...upstreamPolicy(ctx.deps.config),
      checkUrl: ctx.deps.config.upstreams?.checkUrl ?? DEFAULT_UPSTREAM_CHECK_URL,
    }),
  ),
  deleteUpstream: adminOrInternalProcedure.input(upstreamIdInput).mutation(({ ctx, input }) => ctx.db.transaction((tx) => deleteUpstream(tx, input.id))),
  /** The countries sold (offered while an upstream serves them, or egress is direct). */
  catalogue: adminOrInternalProcedure.query(({ ctx }) => getCatalogue(ctx.db)),
  /** Every country the catalogue may list (the location dataset's), by name. */
  catalogueChoices: adminOrInternalProcedure.query(() => ({ countries: datasetCountries() })),
  setCatalogue: adminOrInternalProcedure.input(setCatalogueInput).mutation(({ ctx, input }) => ctx.db.transaction((tx) => setCatalogue(tx, input))),
  /** The gateway fleet from its heartbeats; silent past GATEWAY_DOWN_AFTER_SECONDS is down. */
  gateways: adminOrInternalProcedure.query(({ ctx }) => listGateways(ctx.db, ctx.deps.config.gatewayDownAfterMs)),
  /** Every admin action and data-changing internal call, newest first; nothing edits or deletes it. */
  auditLog: staffProcedure.input(adminAuditInput).query(({ ctx, input }) => listAudit(ctx.db, input ?? {})),
  /** The domains the gateways refuse, and whether they refuse raw IP targets. */
  targetPolicy: adminOrInternalProcedure.query(({ ctx }) => getTargetPolicy(ctx.db)),
  setTargetPolicy: adminOrInternalProcedure.input(targetPolicyInput).mutation(({ ctx, input }) => ctx.db.transaction((tx) => setTargetPolicy(tx, input))),
  ...adminTelegramProcedures,
  ...upstreamReconciliationProcedures,
} satisfies TRPCRouterRecord;
