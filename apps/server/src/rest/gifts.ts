import { giftCodeInput, giftCodeParam } from '@proxyhub/core';
import { restRoute } from './rest';

/** Gift codes from one's own balance, and the referral summary (cookie or Bearer API key). */
export const giftAndReferralRoutes = [
  restRoute({ method: 'POST', url: '/api/gift-codes', body: giftCodeInput }, async (caller, input) => {
    const r = await caller.gifts.create(input);
    return { success: true, code: r.code, creditsBytes: r.creditsBytes };
  }),
  restRoute({ method: 'GET', url: '/api/gift-codes' }, async (caller) => ({ giftCodes: await caller.gifts.list() })),
  restRoute({ method: 'DELETE', url: '/api/gift-codes/:code', params: giftCodeParam }, async (caller, input) => {
    const r = await caller.gifts.cancel(input);
    return { success: true, code: r.code, returnedBytes: r.creditsBytes, newCredits: r.newCredits };
  }),
  restRoute({ method: 'GET', url: '/api/referrals' }, (caller) => caller.referrals.summary()),
];
