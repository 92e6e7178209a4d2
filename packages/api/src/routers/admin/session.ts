import type { TRPCRouterRecord } from '@trpc/server';
import { adminLoginInput, DomainError, adminLoginOutput, adminLogoutOutput, adminMeOutput } from '@proxyhub/core';
import { endSession, startSession } from '../../context';
import { signInLimited } from '../../limits';
import { adminLogin } from '../../services/admin/admin-sign-in';
import { recordAudit } from '../../services/admin/audit-log';
import { twoFactorEnabled } from '../../services/accounts/two-factor';
import { actorOf, publicProcedure } from '../../trpc';
import { owePendingSecondFactor } from '../two-factor';

/** The panel's sign-in: password, then the second factor where one is set up or required. */
export const adminSessionProcedures = {
  login: publicProcedure
    .input(adminLoginInput)
    .use(signInLimited('adminLogin', (input: { username: string }) => input.username))
    .output(adminLoginOutput)
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
  logout: publicProcedure.output(adminLogoutOutput).mutation(async ({ ctx }) => {
    await endSession(ctx, 'admin');
    return { success: true as const };
  }),
  /** UNAUTHORIZED whenever there is no admin session, a user session or not: the panel shows its login. */
  me: publicProcedure.output(adminMeOutput).query(({ ctx }) => {
    if (!ctx.admin) throw new DomainError('UNAUTHORIZED', 'Admin login required');
    return { username: ctx.admin.username, role: ctx.admin.role };
  }),
} satisfies TRPCRouterRecord;
