import { z } from 'zod';

/** What the `referrals.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const referralsSummaryOutput = z.object({
  referralCode: z.string(),
  link: z.string(),
  referred: z.number(),
  pendingBytes: z.bigint(),
  earnedBytes: z.bigint(),
  entries: z.array(
    z.object({
      id: z.string(),
      createdAt: z.date(),
      referredUser: z.string(),
      orderId: z.string(),
      orderGb: z.number(),
      bytes: z.bigint(),
      status: z.enum(['cancelled', 'pending', 'credited', 'not_eligible']),
      reason: z.string().nullable(),
      dueAt: z.date(),
      creditedAt: z.date().nullable(),
    }),
  ),
});
