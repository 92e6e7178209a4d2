import { z } from 'zod';
import { createCodesInput, creditsGbField } from './credits';

export const PROMOTION_KIND_VALUES = ['credit', 'bonus'] as const;
export type PromotionKind = (typeof PROMOTION_KIND_VALUES)[number];

export const PROMO_CODE_FORMAT_MESSAGE = 'Code must be 4-20 letters A-Z or digits';

/** A promotion's code as the admin types it: matched without regard to case, stored uppercase. */
export const promotionCodeField = z
  .string({ error: 'Code is required' })
  .trim()
  .toUpperCase()
  .regex(/^[A-Z0-9]{4,20}$/, PROMO_CODE_FORMAT_MESSAGE);

const wholeAtLeast = (what: string, min: number, max: number) =>
  z
    .number({ error: `${what} must be a number` })
    .int(`${what} must be a whole number`)
    .min(min, `${what} must be at least ${min}`)
    .max(max, `${what} must be at most ${max}`);

export const PROMOTION_MAX_REDEMPTIONS = 1_000_000;

export const createPromotionInput = z
  .object({
    code: promotionCodeField,
    kind: z.enum(PROMOTION_KIND_VALUES, { error: 'Kind must be credit or bonus' }),
    creditsGB: creditsGbField.optional(),
    bonusPercent: wholeAtLeast('Bonus', 1, 100).optional(),
    maxRedemptions: wholeAtLeast('Max redemptions', 1, PROMOTION_MAX_REDEMPTIONS),
    maxPerUser: wholeAtLeast('Max per user', 1, PROMOTION_MAX_REDEMPTIONS).default(1),
    firstPurchaseOnly: z.boolean({ error: 'First purchase only must be true or false' }).default(false),
    expiresAt: createCodesInput.shape.expiresAt.default(null),
    campaign: z
      .string({ error: 'Campaign must be text' })
      .trim()
      .max(40, 'Campaign must be at most 40 characters')
      .nullish()
      .transform((v) => v || null),
  })
  .superRefine((v, ctx) => {
    if (v.kind === 'credit' && v.creditsGB === undefined) ctx.addIssue({ code: 'custom', path: ['creditsGB'], message: 'Credits (GB) must be a number' });
    if (v.kind === 'bonus' && v.bonusPercent === undefined) ctx.addIssue({ code: 'custom', path: ['bonusPercent'], message: 'Bonus must be a number' });
  });
export type CreatePromotionInput = z.input<typeof createPromotionInput>;
export type CreatePromotionValues = z.output<typeof createPromotionInput>;

export const updatePromotionInput = z.object({
  code: promotionCodeField,
  enabled: z.boolean({ error: 'Enabled must be true or false' }),
});

export const promoPreviewInput = z.object({ code: promotionCodeField, gbAmount: z.number({ error: 'GB amount must be a number' }).int().min(1).max(100_000) });
