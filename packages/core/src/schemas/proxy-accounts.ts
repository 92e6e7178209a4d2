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

const proxyUserIdField = z.string({ error: 'Proxy user ID is required' }).trim().min(1, 'Proxy user ID is required').max(64, 'Proxy account not found');

export const createProxyAccountInput = z.object({ name: accountName, capGB: capGB.optional() });
export const updateProxyAccountInput = z
  .object({
    proxyUserId: proxyUserIdField,
    name: accountName.optional(),
    capGB: capGB.optional(),
    disabled: z.boolean({ error: 'disabled must be true or false' }).optional(),
  })
  .refine((v) => v.name !== undefined || v.capGB !== undefined || v.disabled !== undefined, 'Nothing to change: give name, capGB or disabled');
export const proxyAccountInput = z.object({ proxyUserId: proxyUserIdField });

export type CreateProxyAccountInput = z.infer<typeof createProxyAccountInput>;
export type UpdateProxyAccountInput = z.infer<typeof updateProxyAccountInput>;
