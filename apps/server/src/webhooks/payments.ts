/**
 * Payment provider webhooks. No cookies, no CSRF check (exempt): a delivery is trusted only after its
 * signature is verified and the payment is re-read from the provider (in the payments service).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { receivePaymentNotification, type ApiDeps, type NotificationResult, type ProviderName } from '@proxyhub/api';
import { DomainError } from '@proxyhub/core';
import { errorAnswer } from '../error-answer';

/** Runs a provider notification and answers with the one error mapper's status and body. */
export async function deliverNotification(
  deps: ApiDeps,
  provider: ProviderName,
  body: unknown,
  header: (name: string) => string | undefined,
): Promise<{ status: number; body: Record<string, unknown>; result?: NotificationResult }> {
  try {
    // Written outside tRPC: the read cache is cleared here, as every mutation does (read-cache.ts).
    const result = await receivePaymentNotification(deps, provider, body, header).finally(() => deps.cache.invalidate());
    return { status: 200, body: { success: true, status: result.status, credited: result.credited }, result };
  } catch (err) {
    if (err instanceof DomainError) {
      const { status, body: errorBody } = errorAnswer(err);
      return { status, body: errorBody };
    }
    throw err;
  }
}

/** POST /webhooks/<provider>. */
export async function paymentWebhooks(app: FastifyInstance, { deps }: { deps: ApiDeps }) {
  const handler = (provider: ProviderName) => async (req: FastifyRequest, reply: FastifyReply) => {
    const header = (name: string) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    };
    const r = await deliverNotification(deps, provider, req.body ?? null, header);
    if (r.status >= 400) req.log.warn({ provider, status: r.status, error: r.body.error }, 'payment webhook refused');
    return reply.code(r.status).send(r.body);
  };
  app.post('/webhooks/nowpayments', handler('nowpayments'));
  app.post('/webhooks/sandbox', handler('sandbox'));
}
