import { z } from 'zod';

/** What the `gifts.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const giftsCreateOutput = z.object({ code: z.string(), creditsBytes: z.bigint() });

export const giftsListOutput = z.array(
  z.object({
    code: z.string(),
    creditsBytes: z.bigint(),
    creditsGB: z.string(),
    createdAt: z.date(),
    status: z.enum(['cancelled', 'redeemed', 'open']),
    redeemedAt: z.date().nullable(),
    cancelledAt: z.date().nullable(),
  }),
);

export const giftsCancelOutput = z.object({
  code: z.string(),
  creditsBytes: z.bigint(),
  creditsGB: z.string(),
  createdAt: z.date(),
  status: z.enum(['cancelled', 'redeemed', 'open']),
  redeemedAt: z.date().nullable(),
  cancelledAt: z.date().nullable(),
  newCredits: z.bigint(),
});
