import { z } from 'zod';
import { giftCodeInput, giftCodeParam, giftsCancelOutput, giftsCreateOutput, giftsListOutput, referralsSummaryOutput } from '@proxyhub/core';
import { restRoute, withSuccess } from './rest';

/** Gift codes from one's own balance, and the referral summary (cookie or Bearer API key). */
export const giftAndReferralRoutes = [
  restRoute(
    {
      method: 'POST',
      url: '/api/gift-codes',
      summary: `Creates a gift code from the caller's own balance.`,
      response: withSuccess(giftsCreateOutput.pick({ code: true, creditsBytes: true })),
      body: giftCodeInput,
    },
    async (caller, input) => {
      const r = await caller.gifts.create(input);
      return { success: true, code: r.code, creditsBytes: r.creditsBytes };
    },
  ),
  restRoute(
    { method: 'GET', url: '/api/gift-codes', summary: `The caller's gift codes and their states.`, response: z.object({ giftCodes: giftsListOutput }) },
    async (caller) => ({ giftCodes: await caller.gifts.list() }),
  ),
  restRoute(
    {
      method: 'DELETE',
      url: '/api/gift-codes/:code',
      summary: 'Cancels an unredeemed gift code; its traffic returns to the balance.',
      response: z.object({
        success: z.literal(true),
        code: z.string(),
        returnedBytes: giftsCancelOutput.shape.creditsBytes,
        newCredits: giftsCancelOutput.shape.newCredits,
      }),
      params: giftCodeParam,
    },
    async (caller, input) => {
      const r = await caller.gifts.cancel(input);
      return { success: true as const, code: r.code, returnedBytes: r.creditsBytes, newCredits: r.newCredits };
    },
  ),
  restRoute(
    { method: 'GET', url: '/api/referrals', summary: 'The referral code, link and what referrals have earned.', response: referralsSummaryOutput },
    (caller) => caller.referrals.summary(),
  ),
];
