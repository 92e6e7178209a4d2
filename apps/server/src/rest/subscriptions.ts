import { z } from 'zod';
import { subscribeInput, subscriptionIdInput, subscriptionOutput, subscriptionsListOutput, subscriptionsSubscribeOutput } from '@proxyhub/core';
import { restRoute, withSuccess } from './rest';

/** Plan subscriptions: subscribe (an invoice, as a crypto top-up), list, stop renewal. */
export const subscriptionsRoutes = [
  restRoute(
    {
      method: 'POST',
      url: '/api/subscriptions',
      body: subscribeInput,
      summary: 'Subscribes to a plan: an invoice to pay, as a crypto top-up; the subscription starts when it is paid.',
      response: withSuccess(subscriptionsSubscribeOutput),
    },
    async (caller, input) => {
      const r = await caller.subscriptions.subscribe(input);
      return { success: true as const, invoiceUrl: r.invoiceUrl, message: r.message };
    },
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/subscriptions',
      summary: "The caller's plan subscriptions with this period's allowance and use.",
      response: subscriptionsListOutput,
    },
    async (caller) => caller.subscriptions.list(),
  ),
  restRoute(
    {
      method: 'DELETE',
      url: '/api/subscriptions/:id',
      params: subscriptionIdInput,
      summary: 'Stops renewing a subscription; the current period runs to its end.',
      response: z.object({ success: z.literal(true), subscription: subscriptionOutput }),
    },
    async (caller, input) => ({ success: true as const, subscription: await caller.subscriptions.cancel(input) }),
  ),
];
