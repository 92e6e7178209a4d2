/**
 * The sandbox payment page (development and tests only; 404 in production): the invoice URL of the
 * sandbox provider. Plain HTML forms, no script (CSP is script-src 'self'). A click sends a signed
 * notification through the same code path as a provider's webhook, then returns to /topup.
 * It wears the web app's look: the built app's own stylesheet and its account-screen classes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sandboxOrder, SANDBOX_SIGNATURE_HEADER, signSandboxNotification, type ApiDeps, type SandboxNotification } from '@proxyhub/api';
import { centsToUsd, escapeHtml } from '@proxyhub/core';
import { errorBody } from '../error-answer';
import { deliverNotification } from './payments';

/** The built web app's stylesheet (its file name carries a content hash), or none when the app is not built. */
function appStylesheet(webDistDir: string | undefined): string | null {
  const index = webDistDir ? join(webDistDir, 'index.html') : null;
  if (!index || !existsSync(index)) return null;
  return /<link[^>]+href="(\/assets\/[^"]+\.css)"/.exec(readFileSync(index, 'utf8'))?.[1] ?? null;
}

/** GET and POST /sandbox/pay/:id; an encapsulated plugin, so only it accepts form bodies. */
export async function sandboxPage(scope: FastifyInstance, { deps, webDistDir }: { deps: ApiDeps; webDistDir?: string | undefined }) {
  const page = (reply: FastifyReply, status: number, title: string, body: string) => {
    const css = appStylesheet(webDistDir);
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
          `<title>${escapeHtml(title)} · ProxyHub</title><link rel="icon" href="/favicon.svg" type="image/svg+xml">` +
          (css ? `<link rel="stylesheet" href="${escapeHtml(css)}">` : '') +
          `</head><body><div class="auth-page"><div class="auth-brand"><a href="/topup" class="brand" aria-label="ProxyHub top up">` +
          `<span class="brand-mark" aria-hidden="true">P</span><span class="brand-name">ProxyHub</span></a></div>` +
          `<main class="auth-card">${body}</main><p class="auth-footer">Sandbox payments: test mode, no real money moves.</p></div></body></html>`,
      );
  };

  // Forms post urlencoded bodies; only this scope accepts them.
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  scope.get<{ Params: { id: string } }>('/sandbox/pay/:id', async (req, reply) => {
    if (deps.config.production) return reply.code(404).send(errorBody(404, 'Not found'));
    const order = await sandboxOrder(deps.db, req.params.id);
    if (!order) {
      return page(
        reply,
        404,
        'Unknown payment',
        '<h1 class="auth-title">Unknown payment</h1><p class="auth-subtitle">This sandbox payment does not exist.</p><a class="btn btn-secondary btn-block" href="/topup">Back to Top Up</a>',
      );
    }
    const action = `/sandbox/pay/${encodeURIComponent(order.id)}`;
    const open = order.status !== 'finished' && order.status !== 'refunded';
    const price = `$${centsToUsd(order.priceCents)}`;
    const half = centsToUsd(Math.floor(order.priceCents / 2));
    return page(
      reply,
      200,
      'Sandbox payment',
      `<h1 class="auth-title">Sandbox payment</h1><p class="auth-subtitle">Pay or fail this order: the click sends a signed webhook, as a real provider would.</p>` +
        `<dl class="price-table"><div><dt>Amount</dt><dd>${order.gbAmount} GB</dd></div><div class="price-total"><dt>Total</dt><dd>${price}</dd></div></dl>` +
        `<p class="muted small">Order ${escapeHtml(order.id)} &middot; status: <span data-testid="sandbox-status">${escapeHtml(order.status)}</span></p>` +
        (open
          ? `<form method="post" action="${action}"><input type="hidden" name="outcome" value="finished"><button class="btn btn-primary btn-block" type="submit" data-testid="sandbox-pay"><span>Pay ${price}</span></button></form>` +
            `<form method="post" action="${action}" class="sandbox-part"><input type="hidden" name="outcome" value="partially_paid">` +
            `<label class="field-label" for="paidUsd">Amount paid (USD)</label><input class="input" id="paidUsd" name="paidUsd" inputmode="decimal" value="${half}" data-testid="sandbox-paid-usd">` +
            `<button class="btn btn-secondary btn-block" type="submit" data-testid="sandbox-pay-part"><span>Pay part</span></button></form>` +
            `<form method="post" action="${action}"><input type="hidden" name="outcome" value="failed"><button class="btn btn-secondary btn-block" type="submit" data-testid="sandbox-fail"><span>Fail</span></button></form>`
          : `<p>This order is already ${escapeHtml(order.status)}.</p><a class="btn btn-secondary btn-block" href="/topup">Back to Top Up</a>`),
    );
  });

  scope.post<{ Params: { id: string }; Body: { outcome?: unknown; paidUsd?: unknown } | undefined }>('/sandbox/pay/:id', async (req, reply) => {
    if (deps.config.production) return reply.code(404).send(errorBody(404, 'Not found'));
    const outcome = req.body?.outcome;
    if (outcome !== 'finished' && outcome !== 'failed' && outcome !== 'partially_paid') {
      return reply.code(400).send(errorBody(400, 'outcome must be finished, failed or partially_paid'));
    }
    const paidUsd = typeof req.body?.paidUsd === 'string' && /^\d{1,9}(\.\d{1,2})?$/.test(req.body.paidUsd.trim()) ? Number(req.body.paidUsd) : null;
    if (outcome === 'partially_paid' && paidUsd === null) return reply.code(400).send(errorBody(400, 'paidUsd must be an amount in dollars, such as 5.40'));
    const order = await sandboxOrder(deps.db, req.params.id);
    if (!order) return reply.code(404).send(errorBody(404, 'Unknown order'));
    const body: SandboxNotification = {
      order_id: order.id,
      payment_id: `sbx-${order.id}`,
      payment_status: outcome,
      price_amount: order.priceCents / 100,
      price_currency: 'usd',
      ...(outcome === 'partially_paid' ? { actually_paid: paidUsd! } : {}),
    };
    const signature = signSandboxNotification(deps.config.appSecret, body);
    const r = await deliverNotification(deps, 'sandbox', body, (name) => (name.toLowerCase() === SANDBOX_SIGNATURE_HEADER ? signature : undefined));
    if (!r.result) return reply.code(r.status).send(r.body);
    const landed = r.result.status === 'finished' ? 'finished' : r.result.status === 'partially_paid' ? 'partially_paid' : 'failed';
    return reply.redirect(new URL(`/topup?payment=${landed}`, deps.config.publicUrl).toString(), 303);
  });
}
