/**
 * The sandbox payment page (development and tests only; 404 in production): the invoice URL of the
 * sandbox provider. Plain HTML forms, no script (CSP is script-src 'self'). A click sends a signed
 * notification through the same code path as a provider's webhook, then returns to /topup.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sandboxOrder, SANDBOX_SIGNATURE_HEADER, signSandboxNotification, type ApiDeps, type SandboxNotification } from '@proxyhub/api';
import { centsToUsd, escapeHtml } from '@proxyhub/core';
import { deliverNotification } from './payments';

function page(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
        `<style>body{font-family:system-ui,sans-serif;background:#0f172a;color:#e2e8f0;display:flex;justify-content:center;padding:4rem 1rem}` +
        `main{background:#1e293b;border-radius:12px;padding:2rem;max-width:28rem;width:100%}h1{margin-top:0}form{display:inline-block;margin-right:.75rem}` +
        `button{font-size:1rem;padding:.6rem 1.4rem;border:0;border-radius:8px;cursor:pointer;color:#fff}.pay{background:#16a34a}.fail{background:#dc2626}.muted{color:#94a3b8;font-size:.9rem}</style>` +
        `</head><body><main>${body}</main></body></html>`,
    );
}

/** GET and POST /sandbox/pay/:id; an encapsulated plugin, so only it accepts form bodies. */
export async function sandboxPage(scope: FastifyInstance, { deps }: { deps: ApiDeps }) {
  // Forms post urlencoded bodies; only this scope accepts them.
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  scope.get<{ Params: { id: string } }>('/sandbox/pay/:id', async (req, reply) => {
    if (deps.config.production) return reply.code(404).send({ success: false, error: 'Not found' });
    const order = await sandboxOrder(deps.db, req.params.id);
    if (!order) return page(reply, 404, 'Unknown payment', '<h1>Unknown payment</h1><p>This sandbox payment does not exist.</p>');
    const action = `/sandbox/pay/${encodeURIComponent(order.id)}`;
    const open = order.status !== 'finished' && order.status !== 'refunded';
    return page(
      reply,
      200,
      'Sandbox payment',
      `<h1>Sandbox payment</h1>` +
        `<p>${order.gbAmount} GB for <strong>$${centsToUsd(order.priceCents)}</strong></p>` +
        `<p class="muted">Order ${escapeHtml(order.id)} &middot; status: <span data-testid="sandbox-status">${escapeHtml(order.status)}</span></p>` +
        (open
          ? `<form method="post" action="${action}"><input type="hidden" name="outcome" value="finished"><button class="pay" type="submit" data-testid="sandbox-pay">Pay</button></form>` +
            `<form method="post" action="${action}"><input type="hidden" name="outcome" value="failed"><button class="fail" type="submit" data-testid="sandbox-fail">Fail</button></form>`
          : `<p>This order is already ${escapeHtml(order.status)}.</p>`) +
        `<p class="muted">Test mode: no real money moves. The click sends a signed webhook like a real provider would.</p>`,
    );
  });

  scope.post<{ Params: { id: string }; Body: { outcome?: unknown } | undefined }>('/sandbox/pay/:id', async (req, reply) => {
    if (deps.config.production) return reply.code(404).send({ success: false, error: 'Not found' });
    const outcome = req.body?.outcome;
    if (outcome !== 'finished' && outcome !== 'failed') return reply.code(400).send({ success: false, error: 'outcome must be finished or failed' });
    const order = await sandboxOrder(deps.db, req.params.id);
    if (!order) return reply.code(404).send({ success: false, error: 'Unknown order' });
    const body: SandboxNotification = {
      order_id: order.id,
      payment_id: `sbx-${order.id}`,
      payment_status: outcome,
      price_amount: order.priceCents / 100,
      price_currency: 'usd',
    };
    const signature = signSandboxNotification(deps.config.appSecret, body);
    const r = await deliverNotification(deps, 'sandbox', body, (name) => (name.toLowerCase() === SANDBOX_SIGNATURE_HEADER ? signature : undefined));
    if (!r.result) return reply.code(r.status).send(r.body);
    const landed = r.result.status === 'finished' ? 'finished' : 'failed';
    return reply.redirect(new URL(`/topup?payment=${landed}`, deps.config.publicUrl).toString(), 303);
  });
}
