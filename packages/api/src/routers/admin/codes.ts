import type { TRPCRouterRecord } from '@trpc/server';
import {
  adminCodesInput,
  createCodesInput,
  revokeCodeInput,
  SUPPORT_ADJUST_LIMIT_GB,
  adminCreateCodesOutput,
  adminCodesOutput,
  adminRevokeCodeOutput,
} from '@proxyhub/core';
import { listCodes, revokeCode } from '../../services/admin/topup-code-list';
import { createCodes } from '../../services/money/topup-codes';
import { supportProcedure } from '../../trpc';

/** The Codes tab: top-up codes made, listed and withdrawn. */
export const adminCodesProcedures = {
  createCodes: supportProcedure
    .input(createCodesInput)
    .output(adminCreateCodesOutput)
    .mutation(async ({ ctx, input }) => ({
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
  /** Codes with their state and redeemer, by state and by code or redeemer email. */
  codes: supportProcedure
    .input(adminCodesInput)
    .output(adminCodesOutput)
    .query(({ ctx, input }) => listCodes(ctx.db, input ?? {})),
  /** Withdraws an unused code: it then redeems as an unknown one. */
  revokeCode: supportProcedure
    .input(revokeCodeInput)
    .output(adminRevokeCodeOutput)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      ...(await ctx.db.transaction((tx) => revokeCode(tx, input.code))),
    })),
} satisfies TRPCRouterRecord;
