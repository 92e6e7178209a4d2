import {
  createWebhookInput,
  resendWebhookInput,
  webhookIdInput,
  webhooksCreateOutput,
  webhooksDeleteOutput,
  webhooksDeliveriesOutput,
  webhooksListOutput,
  webhooksResendOutput,
} from '@proxyhub/core';
import { RestResponse, restRoute, withSuccess } from './rest';

/** A customer's webhooks and their delivery log (cookie or Bearer API key). */
export const webhookRoutes = [
  restRoute({ method: 'GET', url: '/api/webhooks', summary: `The caller's webhooks.`, response: webhooksListOutput }, (caller) => caller.webhooks.list()),
  restRoute(
    {
      method: 'POST',
      url: '/api/webhooks',
      summary: 'Creates a webhook; the answer is the only time its signing secret is shown.',
      response: withSuccess(webhooksCreateOutput),
      status: 201,
      body: createWebhookInput,
    },
    async (caller, input) => new RestResponse(201, { success: true, ...(await caller.webhooks.create(input)) }),
  ),
  restRoute(
    { method: 'DELETE', url: '/api/webhooks/:id', summary: 'Deletes a webhook.', response: webhooksDeleteOutput, params: webhookIdInput },
    (caller, input) => caller.webhooks.delete(input),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/webhooks/:id/deliveries',
      summary: `A webhook's recent deliveries and their results.`,
      response: webhooksDeliveriesOutput,
      params: webhookIdInput,
    },
    (caller, input) => caller.webhooks.deliveries(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/api/webhooks/:id/deliveries/:deliveryId/resend',
      summary: 'Sends a delivery again.',
      response: withSuccess(webhooksResendOutput),
      body: resendWebhookInput,
      pathParams: true,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.webhooks.resend(input)),
    }),
  ),
];
