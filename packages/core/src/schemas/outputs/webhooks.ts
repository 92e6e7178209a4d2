import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../webhooks';

/** What the `webhooks.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const webhooksListOutput = z.object({
  webhooks: z.array(
    z.object({
      id: z.string(),
      url: z.string(),
      events: z.array(z.enum(WEBHOOK_EVENTS)),
      createdAt: z.string(),
    }),
  ),
});

export const webhooksCreateOutput = z.object({
  webhook: z.object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    createdAt: z.string(),
  }),
  secret: z.string(),
});

export const webhooksDeleteOutput = z.object({ success: z.literal(true) });

export const webhooksDeliveriesOutput = z.object({
  deliveries: z.array(
    z.object({
      id: z.string(),
      eventId: z.string(),
      type: z.string(),
      status: z.enum(['failed', 'pending', 'delivered']),
      attemptCount: z.number(),
      attempts: z.array(z.object({ at: z.string(), statusCode: z.number().nullable(), error: z.string().nullable(), durationMs: z.number() })),
      nextAttemptAt: z.string().nullable(),
      createdAt: z.string(),
      deliveredAt: z.string().nullable(),
      body: z.string(),
    }),
  ),
});

export const webhooksResendOutput = z.object({
  delivery: z.object({
    id: z.string(),
    eventId: z.string(),
    type: z.string(),
    status: z.enum(['failed', 'pending', 'delivered']),
    attemptCount: z.number(),
    attempts: z.array(z.object({ at: z.string(), statusCode: z.number().nullable(), error: z.string().nullable(), durationMs: z.number() })),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
    deliveredAt: z.string().nullable(),
    body: z.string(),
  }),
});
