import { createWebhookInput, resendWebhookInput, webhookIdInput } from '@proxyhub/core';
import { RestResponse, restRoute } from './rest';

/** A customer's webhooks and their delivery log (cookie or Bearer API key). */
export const webhookRoutes = [
  restRoute({ method: 'GET', url: '/api/webhooks' }, (caller) => caller.webhooks.list()),
  restRoute(
    { method: 'POST', url: '/api/webhooks', body: createWebhookInput },
    async (caller, input) => new RestResponse(201, { success: true, ...(await caller.webhooks.create(input)) }),
  ),
  restRoute({ method: 'DELETE', url: '/api/webhooks/:id', params: webhookIdInput }, (caller, input) => caller.webhooks.delete(input)),
  restRoute({ method: 'GET', url: '/api/webhooks/:id/deliveries', params: webhookIdInput }, (caller, input) => caller.webhooks.deliveries(input)),
  restRoute({ method: 'POST', url: '/api/webhooks/:id/deliveries/:deliveryId/resend', body: resendWebhookInput, pathParams: true }, async (caller, input) => ({
    success: true,
    ...(await caller.webhooks.resend(input)),
  })),
];
