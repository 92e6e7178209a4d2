import type { TRPCRouterRecord } from '@trpc/server';
import {
  adminIdInput,
  createAdminInput,
  updateAdminInput,
  adminAdminsOutput,
  adminCreateAdminOutput,
  adminUpdateAdminOutput,
  adminDisableAdminOutput,
} from '@proxyhub/core';
import { createAdmin, disableAdmin, listAdmins, updateAdminRole } from '../../services/admin/admins';
import { adminOrInternalProcedure } from '../../trpc';

/** The Admins tab: the panel's own accounts and their roles. */
export const adminAdminsProcedures = {
  admins: adminOrInternalProcedure.output(adminAdminsOutput).query(({ ctx }) => listAdmins(ctx.db)),
  createAdmin: adminOrInternalProcedure
    .input(createAdminInput)
    .output(adminCreateAdminOutput)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      admin: await createAdmin(ctx.db, input),
    })),
  /** A new role, from the admin's next request; the last active owner stays one. */
  updateAdmin: adminOrInternalProcedure
    .input(updateAdminInput)
    .output(adminUpdateAdminOutput)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      admin: await ctx.db.transaction((tx) => updateAdminRole(tx, input)),
    })),
  /** Its sessions end at once; the last active admin cannot be disabled. */
  disableAdmin: adminOrInternalProcedure
    .input(adminIdInput)
    .output(adminDisableAdminOutput)
    .mutation(async ({ ctx, input }) => {
      const admin = await ctx.db.transaction((tx) => disableAdmin(tx, input.id));
      await ctx.deps.sessions.admin.endAll(admin.id);
      return { success: true as const, admin };
    }),
} satisfies TRPCRouterRecord;
