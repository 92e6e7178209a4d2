import type { TRPCRouterRecord } from '@trpc/server';
import { adminAuditInput, adminLoginInput, adminPaymentsInput, adminUsersInput, createCodesInput, DomainError } from '@proxyhub/core';
import { endSession, startSession } from '../context';
import { adminLogin } from '../services/admin';
import { listAudit, recordAudit } from '../services/audit-log';
import { createCodes } from '../services/codes';
import { listAllPayments } from '../services/payments';
import { globalUsage, listUsers } from '../services/user-list';
import { signInLimited } from '../limits';
import { actorOf, adminOrInternalProcedure, publicProcedure } from '../trpc';

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
    return { username: ctx.admin.username };
  }),
  createCodes: adminOrInternalProcedure.input(createCodesInput).mutation(async ({ ctx, input }) => ({
    codes: await ctx.db.transaction((tx) =>
      createCodes(tx, {
        creditsGB: input.creditsGB,
        quantity: input.quantity,
        expiresAt: input.expiresAt,
        createdByAdminId: ctx.admin?.id ?? null,
        createdBy: ctx.admin ? `admin:${ctx.admin.username}` : 'internal',
      }),
    ),
  })),
  users: adminOrInternalProcedure.input(adminUsersInput).query(({ ctx, input }) => listUsers(ctx.db, input ?? {})),
  globalUsage: adminOrInternalProcedure.query(({ ctx }) => globalUsage(ctx.db)),
  payments: adminOrInternalProcedure.input(adminPaymentsInput).query(({ ctx, input }) => listAllPayments(ctx.db, input ?? {})),
  /** Every admin action and data-changing internal call, newest first; nothing edits or deletes it. */
  auditLog: adminOrInternalProcedure.input(adminAuditInput).query(({ ctx, input }) => listAudit(ctx.db, input ?? {})),
} satisfies TRPCRouterRecord;
