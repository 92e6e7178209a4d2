import type { TRPCRouterRecord } from '@trpc/server';
import { abuseLookupInput, adminAuditInput, adminAuditLogOutput, adminAbuseLookupOutput } from '@proxyhub/core';
import { abuseLookup } from '../../services/admin/abuse-lookup';
import { listAudit } from '../../services/admin/audit-log';
import { staffProcedure } from '../../trpc';

/** The Audit log and Abuse tabs: who did what, and whose traffic hit what. */
export const adminAuditProcedures = {
  /** Every admin action and data-changing internal call, newest first; nothing edits or deletes it. */
  auditLog: staffProcedure
    .input(adminAuditInput)
    .output(adminAuditLogOutput)
    .query(({ ctx, input }) => listAudit(ctx.db, input ?? {})),
  /** Connections that hit a host or left through an exit IP, with their customers (abuse reports). */
  abuseLookup: staffProcedure
    .input(abuseLookupInput)
    .output(adminAbuseLookupOutput)
    .query(({ ctx, input }) => abuseLookup(ctx.db, input)),
} satisfies TRPCRouterRecord;
