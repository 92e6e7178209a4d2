import { z } from 'zod';
import { isHundredth } from './alerts';
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

/** A user named in an admin path (`/admin/users/:id`); an unknown or malformed id is a 404. */
const userIdField = z.string({ error: 'User id is required' }).trim().min(1, 'User id is required').max(100, 'User not found');
export const adminUserInput = z.object({ id: userIdField });

export const suspendUserInput = z.object({ id: userIdField, reason: adminReason });
export const unsuspendUserInput = z.object({ id: userIdField, reason: adminReason.optional() });

/** A balance correction in GB, positive or negative (two decimals at most), with its reason. */
export const adjustBalanceInput = z.object({
  id: userIdField,
  deltaGB: z
    .number({ error: 'deltaGB must be a number' })
    .refine((v) => v !== 0, 'deltaGB must not be 0')
    .refine((v) => Math.abs(v) <= 100_000, 'deltaGB must be between -100000 and 100000')
    .refine(isHundredth, 'deltaGB has at most two decimals'),
  reason: adminReason,
});
