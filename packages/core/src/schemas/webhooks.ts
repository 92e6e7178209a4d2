import { z } from 'zod';

/** What a customer's webhook can subscribe to (`statement.ready` is accepted for when statements exist). */
export const WEBHOOK_EVENTS = [
  'balance.low',
  'payment.credited',
  'proxy_account.limit_reached',
  'usage.threshold',
  'proxy_account.expiring',
  'account.suspended',
  'statement.ready',
  'plan.renewing',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** How many webhooks one user may have. */
export const MAX_WEBHOOKS_PER_USER = 5;

/** The header each delivery is signed in: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-ProxyHub-Signature';

export const createWebhookInput = z.object({
  url: z
    .string({ error: 'URL is required' })
    .trim()
    .min(1, 'URL is required')
    .max(2000, 'URL must be at most 2000 characters')
    .refine((v) => URL.canParse(v), 'URL must be a valid URL'),
  events: z
    .array(z.enum(WEBHOOK_EVENTS, { error: `Events must be among ${WEBHOOK_EVENTS.join(', ')}` }), { error: 'Events must be a list' })
    .min(1, 'Choose at least one event')
    .refine((v) => new Set(v).size === v.length, 'Events must not repeat'),
});
export type CreateWebhookInput = z.input<typeof createWebhookInput>;

const webhookId = z.string({ error: 'Webhook id is required' }).trim().min(1, 'Webhook id is required').max(100, 'Webhook not found');
export const webhookIdInput = z.object({ id: webhookId });
export const resendWebhookInput = z.object({
  id: webhookId,
  deliveryId: z.string({ error: 'Delivery id is required' }).trim().min(1, 'Delivery id is required').max(100, 'Delivery not found'),
});
