import { bytesToMb, cancelCryptoPaymentInput, cryptoPaymentInput, processBatchInput, redeemCodeInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The spec's credit paths over the credits router. */
export const creditsRoutes = [
  restRoute({ method: 'POST', url: '/auth/redeem-code', body: redeemCodeInput }, async (caller, input) => {
    const r = await caller.credits.redeem(input);
    return { success: true, credits: bytesToMb(r.creditedBytes), message: r.message, newBalance: r.remainingBytes };
  }),
  restRoute({ method: 'GET', url: '/api/pricing' }, async (caller) => caller.credits.pricing()),
  restRoute({ method: 'POST', url: '/auth/process-batch', body: processBatchInput }, async (caller, input) => {
    const r = await caller.credits.processBatch(input);
    return { success: true, message: r.message };
  }),
  restRoute({ method: 'POST', url: '/auth/create-crypto-payment', body: cryptoPaymentInput }, async (caller, input) => {
    const r = await caller.credits.createCryptoPayment(input);
    return { success: true, invoiceUrl: r.invoiceUrl, message: r.message };
  }),
  restRoute({ method: 'POST', url: '/auth/cancel-crypto-payment', body: cancelCryptoPaymentInput }, async (caller, input) => ({
    success: true,
    ...(await caller.credits.cancelCryptoPayment(input)),
  })),
];
