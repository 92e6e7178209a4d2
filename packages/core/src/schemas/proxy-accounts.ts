import { z } from 'zod';
import { isHundredth } from './alerts';

export const MAX_SUB_ACCOUNTS = 100;

const accountName = z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(64, 'Name must be at most 64 characters');

/** A limit in GB: any positive amount with at most two decimals (0.01 GB is the smallest), or null for none; named as the screen names it. */
const limitGB = (label: string) =>
  z
    .number({ error: `${label} must be a number of GB` })
    .positive(`${label} must be more than 0 GB`)
    .max(1_000_000, `${label} must be at most 1000000 GB`)
    .refine(isHundredth, `${label} has at most two decimals`)
    .nullable();
const capGB = limitGB('Cap');

/** The sub-account limits beside the cap: all optional, null removes one. */
const limits = {
  expiresAt: z.iso.datetime({ offset: true, error: 'Expiry must be a date and time, or empty' }).nullable().optional(),
  dailyLimitGB: limitGB('Daily limit').optional(),
  monthlyLimitGB: limitGB('Monthly limit').optional(),
  maxConnections: z
    .number({ error: 'Max connections must be a number' })
    .int('Max connections must be a whole number')
    .min(1, 'Max connections must be at least 1')
    .max(100_000, 'Max connections must be at most 100000')
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
    disabled: z.boolean({ error: 'Disabled must be true or false' }).optional(),
  })
  .refine(
    (v) => v.name !== undefined || v.disabled !== undefined || LIMIT_FIELDS.some((f) => v[f] !== undefined),
    'Nothing to change: give a name, a cap, a limit, an expiry or whether it is disabled',
  );
export const proxyAccountInput = z.object({ proxyUserId: proxyUserIdField });

export type CreateProxyAccountInput = z.infer<typeof createProxyAccountInput>;
export type UpdateProxyAccountInput = z.infer<typeof updateProxyAccountInput>;
