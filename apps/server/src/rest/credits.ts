import { z } from 'zod';
import {
  bytesToMb,
  cancelCryptoPaymentInput,
  cryptoPaymentInput,
  processBatchInput,
  redeemCodeInput,
  creditsCancelCryptoPaymentOutput,
  creditsCreateCryptoPaymentOutput,
  creditsPricingOutput,
  creditsProcessBatchOutput,
  creditsRedeemOutput,
} from '@proxyhub/core';
import { restRoute, withSuccess } from './rest';

/** The spec's credit paths over the credits router. */
export const creditsRoutes = [
  restRoute(
    {
      method: 'POST',
      url: '/auth/redeem-code',
      summary: 'Redeems a credit or gift code onto the balance.',
      response: z.object({
        success: z.literal(true),
        credits: z.number().describe('MB credited'),
        message: z.string(),
        newBalance: creditsRedeemOutput.shape.remainingBytes,
      }),
      body: redeemCodeInput,
    },
    async (caller, input) => {
      const r = await caller.credits.redeem(input);
      return { success: true as const, credits: bytesToMb(r.creditedBytes), message: r.message, newBalance: r.remainingBytes };
    },
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/pricing',
      summary: `The price per GB, volume tiers and minimum order (the caller's own price when signed in).`,
      response: creditsPricingOutput,
    },
    async (caller) => caller.credits.pricing(),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/process-batch',
      summary: 'Redeems a batch of codes onto the balance.',
      response: z.object({ success: z.literal(true), message: creditsProcessBatchOutput.shape.message }),
      body: processBatchInput,
    },
    async (caller, input) => {
      const r = await caller.credits.processBatch(input);
      return { success: true as const, message: r.message };
    },
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/create-crypto-payment',
      summary: 'Orders traffic: creates a crypto payment and answers its invoice URL.',
      response: withSuccess(creditsCreateCryptoPaymentOutput.pick({ invoiceUrl: true, message: true })),
      body: cryptoPaymentInput,
    },
    async (caller, input) => {
      const r = await caller.credits.createCryptoPayment(input);
      return { success: true, invoiceUrl: r.invoiceUrl, message: r.message };
    },
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/cancel-crypto-payment',
      summary: 'Cancels an unpaid crypto payment.',
      response: withSuccess(creditsCancelCryptoPaymentOutput),
      body: cancelCryptoPaymentInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.credits.cancelCryptoPayment(input)),
    }),
  ),
];
