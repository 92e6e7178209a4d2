import { subscribeInput, subscriptionIdInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** Plan subscriptions: subscribe (an invoice, as a crypto top-up), list, stop renewal. */
export const subscriptionsRoutes = [
  restRoute({ method: 'POST', url: '/api/subscriptions', body: subscribeInput }, async (caller, input) => {
    const r = await caller.subscriptions.subscribe(input);
    return { success: true, invoiceUrl: r.invoiceUrl, message: r.message };
  }),
  restRoute({ method: 'GET', url: '/api/subscriptions' }, async (caller) => caller.subscriptions.list()),
  restRoute({ method: 'DELETE', url: '/api/subscriptions/:id', params: subscriptionIdInput }, async (caller, input) => ({
    success: true,
    subscription: await caller.subscriptions.cancel(input),
  })),
];
