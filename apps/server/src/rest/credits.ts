import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '@proxyhub/api';
import { bytesToMb } from '@proxyhub/core';
import { registerPaymentWebhooks } from '../webhooks/payments';
import { registerSandboxPage } from '../webhooks/sandbox';
import { rest } from './rest';

/** The spec's credit paths over the credits router, plus payment webhooks and the sandbox page. */
export function registerCreditsRoutes(app: FastifyInstance, deps: ApiDeps) {
  app.post(
    '/auth/redeem-code',
    rest(deps, async (caller, body) => {
      const r = await caller.credits.redeem(body as never);
      return { success: true, credits: bytesToMb(r.creditedBytes), message: r.message, newBalance: r.balance };
    }),
  );

  app.post(
    '/auth/process-batch',
    rest(deps, async (caller, body) => {
      const r = await caller.credits.processBatch(body as never);
      return { success: true, message: r.message };
    }),
  );

  app.post(
    '/auth/create-crypto-payment',
    rest(deps, async (caller, body) => {
      const r = await caller.credits.createCryptoPayment(body as never);
      return { success: true, invoiceUrl: r.invoiceUrl, message: r.message };
    }),
  );

  registerPaymentWebhooks(app, deps);
  registerSandboxPage(app, deps);
}
