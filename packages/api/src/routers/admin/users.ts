import type { TRPCRouterRecord } from '@trpc/server';
import {
  adjustBalanceInput,
  adminConnectionsInput,
  adminUserInput,
  adminUserPatchInput,
  adminUsersInput,
  DomainError,
  NOT_ALLOWED_FOR_ROLE,
  SUPPORT_ADJUST_LIMIT_GB,
  suspendUserInput,
  unsuspendUserInput,
  adminUsersOutput,
  adminPatchUserOutput,
  adminUserOutput,
  adminUserConnectionsOutput,
  adminSuspendUserOutput,
  adminUnsuspendUserOutput,
  adminAdjustUserBalanceOutput,
} from '@proxyhub/core';
import { inBackground, kickTelegram } from '../../deps';
import { mailTemplates } from '../../mail';
import { adjustBalance, adminUserDetail, suspendUser, unsuspendUser } from '../../services/admin/user-admin';
import { listUsers } from '../../services/admin/user-list';
import { allConnections, listConnections } from '../../services/connection-log/reads';
import { patchUser } from '../../services/money/pricing';
import { checkBalanceAlerts } from '../../services/notify/balance-alerts';
import { actorOf, financeProcedure, staffProcedure, supportProcedure } from '../../trpc';

/** The Users tab and a user's page: the list, one user in full, their log, suspension, corrections. */
export const adminUsersProcedures = {
  users: staffProcedure
    .input(adminUsersInput)
    .output(adminUsersOutput)
    .query(({ ctx, input }) => listUsers(ctx.db, input ?? {})),
  /** PATCH /admin/users/:id: the user's own rate (finance) and target policy exemption (owners only). */
  patchUser: financeProcedure
    .input(adminUserPatchInput)
    .output(adminPatchUserOutput)
    .mutation(async ({ ctx, input }) => {
      if (input.targetPolicyExempt !== undefined && ctx.admin && ctx.admin.role !== 'owner') {
        throw new DomainError('FORBIDDEN', NOT_ALLOWED_FOR_ROLE);
      }
      return { success: true as const, user: await ctx.db.transaction((tx) => patchUser(tx, input)) };
    }),
  /** One user in full: profile, balances, proxy accounts, billing, 30 days of usage, sessions. */
  user: staffProcedure
    .input(adminUserInput)
    .output(adminUserOutput)
    .query(({ ctx, input }) => adminUserDetail(ctx.db, input.id)),
  /** One user's connection log (same filters and pages as theirs). */
  userConnections: staffProcedure
    .input(adminConnectionsInput)
    .output(adminUserConnectionsOutput)
    .query(({ ctx, input }) => {
      const { id, ...filters } = input;
      return listConnections(ctx.db, id, filters);
    }),
  userConnectionsAll: staffProcedure.input(adminConnectionsInput).query(({ ctx, input }) => {
    const { id, ...filters } = input;
    return allConnections(ctx.db, id, filters);
  }),
  /** Sign-in, sessions, API key and proxy credentials stop; the reason goes to the audit log (and to the customer with notifyCustomer). */
  suspendUser: supportProcedure
    .input(suspendUserInput)
    .output(adminSuspendUserOutput)
    .mutation(async ({ ctx, input }) => {
      const { suspendedAt, email, locale } = await ctx.db.transaction((tx) => suspendUser(tx, input.id));
      kickTelegram(ctx.deps);
      if (input.notifyCustomer) {
        const mail = mailTemplates.accountSuspended({ email, locale }, `${ctx.deps.config.publicUrl}/acceptable-use`, input.reason);
        inBackground(ctx.deps, 'suspension mail', () => ctx.deps.mailer.send(mail));
      }
      return { success: true as const, suspendedAt: suspendedAt.toISOString() };
    }),
  unsuspendUser: supportProcedure
    .input(unsuspendUserInput)
    .output(adminUnsuspendUserOutput)
    .mutation(async ({ ctx, input }) => {
      await ctx.db.transaction((tx) => unsuspendUser(tx, input.id));
      kickTelegram(ctx.deps);
      return { success: true as const };
    }),
  /** A balance correction with a reason: one ledger entry naming the admin. */
  adjustUserBalance: supportProcedure
    .input(adjustBalanceInput)
    .output(adminAdjustUserBalanceOutput)
    .mutation(async ({ ctx, input }) => {
      if (ctx.admin?.role === 'support' && Math.abs(input.deltaGB) > SUPPORT_ADJUST_LIMIT_GB) throw new DomainError('FORBIDDEN', NOT_ALLOWED_FOR_ROLE);
      const r = await ctx.db.transaction((tx) => adjustBalance(tx, { ...input, actor: actorOf(ctx).actor }));
      // A correction can cross the user's low-balance threshold either way.
      inBackground(ctx.deps, 'balance alerts', () => checkBalanceAlerts(ctx.db, ctx.deps, [input.id], ctx.deps.logger));
      return { success: true as const, ...r };
    }),
} satisfies TRPCRouterRecord;
