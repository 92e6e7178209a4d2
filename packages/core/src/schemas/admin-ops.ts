import { z } from 'zod';
import { pageField, pageSizeUpTo } from './credits';

/** The audit log, newest first, filtered by exact actor, action or target. */
export const adminAuditInput = z
  .object({
    actor: z.string().trim().max(200, 'actor is too long').optional(),
    action: z.string().trim().max(200, 'action is too long').optional(),
    target: z.string().trim().max(300, 'target is too long').optional(),
    page: pageField.optional(),
    pageSize: pageSizeUpTo(200).optional(),
  })
  .optional();
export type AdminAuditInput = z.infer<typeof adminAuditInput>;

/** A reason an admin gives for an action on an account: required, recorded in the audit log. */
export const adminReason = z
  .string({ error: 'A reason is required' })
  .trim()
  .min(1, 'A reason is required')
  .max(500, 'The reason must be at most 500 characters');
