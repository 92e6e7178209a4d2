import { z } from 'zod';
import { isHundredth } from './alerts';

export const MAX_SUB_ACCOUNTS = 100;

const accountName = z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(64, 'Name must be at most 64 characters');

/** A cap in GB: any positive amount with at most two decimals (0.01 GB is the smallest), or null for none. */
const capGB = z
  .number({ error: 'capGB must be a number or null' })
  .positive('capGB must be more than 0 GB')
  .max(1_000_000, 'capGB must be at most 1000000 GB')
  .refine(isHundredth, 'capGB has at most two decimals')
  .nullable();

/** A limit in GB like a cap, named for its field in every message. */
const limitGB = (field: string) =>
  z
    .number({ error: `${field} must be a number or null` })
    .positive(`${field} must be more than 0 GB`)
    .max(1_000_000, `${field} must be at most 1000000 GB`)
    .refine(isHundredth, `${field} has at most two decimals`)
    .nullable();

/** The sub-account limits beside the cap: all optional, null removes one. */
const limits = {
  expiresAt: z.iso.datetime({ offset: true, error: 'expiresAt must be an ISO 8601 date and time, or null' }).nullable().optional(),
  dailyLimitGB: limitGB('dailyLimitGB').optional(),
  monthlyLimitGB: limitGB('monthlyLimitGB').optional(),
  maxConnections: z
    .number({ error: 'maxConnections must be a number or null' })
    .int('maxConnections must be a whole number')
    .min(1, 'maxConnections must be at least 1')
    .max(100_000, 'maxConnections must be at most 100000')
    .nullable()
    .optional(),
};
const LIMIT_FIELDS = ['capGB', 'expiresAt', 'dailyLimitGB', 'monthlyLimitGB', 'maxConnections'] as const;

const proxyUserIdField = z.string({ error: 'Proxy user ID is required' }).trim().min(1, 'Proxy user ID is required').max(64, 'Proxy account not found');

export const createProxyAccountInput = z.object({ name: accountName, capGB: capGB.optional(), ...limits });
export const updateProxyAccountInput = z
  .object({
    proxyUserId: proxyUserIdField,
    name: accountName.optional(),
    capGB: capGB.optional(),
    ...limits,
    disabled: z.boolean({ error: 'disabled must be true or false' }).optional(),
  })
  .refine(
    (v) => v.name !== undefined || v.disabled !== undefined || LIMIT_FIELDS.some((f) => v[f] !== undefined),
    `Nothing to change: give name, disabled or one of ${LIMIT_FIELDS.join(', ')}`,
  );
export const proxyAccountInput = z.object({ proxyUserId: proxyUserIdField });

export type CreateProxyAccountInput = z.infer<typeof createProxyAccountInput>;
export type UpdateProxyAccountInput = z.infer<typeof updateProxyAccountInput>;
