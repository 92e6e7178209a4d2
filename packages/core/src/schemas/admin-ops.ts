import { z } from 'zod';
import { ADMIN_ROLES, DEFAULT_ADMIN_ROLE } from '../admin-roles';
import { PAYMENT_STATUSES } from '../constants';
import { isHundredth } from './alerts';
import { pageField, pageSizeUpTo } from './credits';

/** The audit log, newest first, filtered by exact actor, action or target. */
export const adminAuditInput = z
  .object({
    actor: z.string().trim().max(200, 'Actor must be at most 200 characters').optional(),
    action: z.string().trim().max(200, 'Action must be at most 200 characters').optional(),
    target: z.string().trim().max(300, 'Target must be at most 300 characters').optional(),
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

/** `notifyCustomer`: the reason is also mailed to the customer (the Abuse tab's "Suspend with reason"). */
export const suspendUserInput = z.object({
  id: userIdField,
  reason: adminReason,
  notifyCustomer: z.boolean({ error: 'Mail the customer must be true or false' }).optional(),
});
export const unsuspendUserInput = z.object({ id: userIdField, reason: adminReason.optional() });

/** A balance correction in GB, positive or negative (two decimals at most), with its reason. */
export const adjustBalanceInput = z.object({
  id: userIdField,
  deltaGB: z
    .number({ error: 'Amount must be a number of GB' })
    .refine((v) => v !== 0, 'Amount must not be 0')
    .refine((v) => Math.abs(v) <= 100_000, 'Amount must be between -100000 and 100000 GB')
    .refine(isHundredth, 'Amount has at most two decimals'),
  reason: adminReason,
});

export const ADMIN_CODE_STATUSES = ['unused', 'redeemed', 'expired', 'revoked'] as const;
const searchText = z.string({ error: 'Search must be text' }).trim().max(200, 'Search must be at most 200 characters');

/** Codes for the admin, newest first: by state, and by code or redeemer email (`q`). */
export const adminCodesInput = z
  .object({
    status: z.enum(ADMIN_CODE_STATUSES, { error: 'Status must be unused, redeemed, expired or revoked' }).optional(),
    q: searchText.optional(),
    page: pageField.optional(),
    pageSize: pageSizeUpTo(200).optional(),
  })
  .optional();

export const revokeCodeInput = z.object({ code: z.string({ error: 'Code is required' }).trim().min(1, 'Code is required').max(64, 'Code not found') });

/** Orders for the admin, newest first: by provider status, and by user email or order id (`q`). */
export const adminPaymentsInput = z
  .object({
    status: z.enum(PAYMENT_STATUSES, { error: `Status must be one of ${PAYMENT_STATUSES.join(', ')}` }).optional(),
    q: searchText.optional(),
    page: pageField.optional(),
    pageSize: pageSizeUpTo(200).optional(),
  })
  .optional();

function adminRoleField() {
  return z.enum(ADMIN_ROLES, { error: `Role must be one of ${ADMIN_ROLES.join(', ')}` });
}

/** A new admin: a username of letters, digits, dots, dashes or underscores, and a password of 8+ characters. */
export const createAdminInput = z.object({
  username: z
    .string({ error: 'Username is required' })
    .trim()
    .min(1, 'Username is required')
    .max(64, 'Username must be at most 64 characters')
    .regex(/^[A-Za-z0-9._-]+$/, 'Username may use letters, digits, dots, dashes and underscores'),
  password: z
    .string({ error: 'Password is required' })
    .min(8, 'Admin password must be at least 8 characters')
    .max(200, 'Admin password must be at most 200 characters'),
  role: adminRoleField().default(DEFAULT_ADMIN_ROLE),
});
export type CreateAdminInput = z.input<typeof createAdminInput>;

export const adminIdInput = z.object({ id: z.string({ error: 'Admin id is required' }).trim().min(1, 'Admin id is required').max(100, 'Admin not found') });

/** A new role for an admin (`PATCH /admin/admins/:id`). */
export const updateAdminInput = adminIdInput.extend({ role: adminRoleField() });
export type UpdateAdminInput = z.input<typeof updateAdminInput>;
