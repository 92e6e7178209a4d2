import { z } from 'zod';

const positiveCents = (what: string, max = 100_000_000) =>
  z
    .number({ error: `${what} must be a number` })
    .int(`${what} must be a whole number of cents`)
    .min(1, `${what} must be at least 1 cent`)
    .max(max, `${what} is too large`);

export const setPricingInput = z
  .object({
    pricePerGbCents: positiveCents('Price per GB'),
    minOrderCents: positiveCents('Minimum order'),
    tiers: z
      .array(
        z.object({
          minGb: z
            .number({ error: 'Tier GB must be a number' })
            .int('Tier GB must be a whole number')
            .min(1, 'Tier GB must be at least 1')
            .max(100_000, 'Tier GB must be at most 100000'),
          pricePerGbCents: positiveCents('Tier price per GB'),
        }),
        { error: 'Tiers must be a list' },
      )
      .max(20, 'At most 20 tiers')
      .default([]),
  })
  .superRefine((v, ctx) => {
    v.tiers.forEach((t, i) => {
      const prev = i === 0 ? null : v.tiers[i - 1]!;
      if (prev && t.minGb <= prev.minGb) ctx.addIssue({ code: 'custom', path: ['tiers', i, 'minGb'], message: 'Tiers must be in ascending GB' });
      const above = prev ? prev.pricePerGbCents : v.pricePerGbCents;
      if (t.pricePerGbCents >= above)
        ctx.addIssue({ code: 'custom', path: ['tiers', i, 'pricePerGbCents'], message: 'Each tier must be cheaper than the one before' });
    });
  });
export type SetPricingInput = z.input<typeof setPricingInput>;

const userPriceField = z.union([z.null(), positiveCents('Price per GB')], { error: 'Price per GB must be a number of cents or null' });
const patchedUserId = z.string({ error: 'User id is required' }).uuid('User not found');

export const setUserPriceInput = z.object({ id: patchedUserId, pricePerGbCents: userPriceField });
export type SetUserPriceInput = z.infer<typeof setUserPriceInput>;

/**
 * `PATCH /admin/users/:id`: the user's own rate (finance and owners) and their exemption from the
 * target policy (owners), either or both.
 */
export const adminUserPatchInput = z
  .object({
    id: patchedUserId,
    pricePerGbCents: userPriceField.optional(),
    targetPolicyExempt: z.boolean({ error: 'Target policy exemption must be true or false' }).optional(),
  })
  .refine((v) => v.pricePerGbCents !== undefined || v.targetPolicyExempt !== undefined, {
    message: 'Give a price per GB or a target policy exemption to change',
  });
export type AdminUserPatchInput = z.infer<typeof adminUserPatchInput>;
