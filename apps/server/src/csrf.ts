/**
 * CSRF: a cookie-authenticated mutation must be JSON (a cross-site form cannot send that without a
 * CORS preflight we never grant) and must come from our own origin by Origin or Sec-Fetch-Site.
 * Any other mutation that a browser marks as cross-site is refused too (login CSRF: signing a
 * victim's browser into the attacker's account needs no cookie).
 * Bearer calls carry no ambient authority (context.ts ignores every cookie on them, however junk the
 * token) and webhooks are signed, so both are exempt.
 * The tRPC adapter does not check Content-Type and Fastify parses text/plain: hence this hook.
 * One narrow exception to the JSON rule: a request with no body and no Content-Type at all (a bare
 * `POST /auth/logout`). No HTML form can send that (a form always has a Content-Type), and it still
 * needs our own Origin or Sec-Fetch-Site like any other cookie-authenticated change.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { usesBearer } from '@proxyhub/api';
import { errorBody } from './error-answer';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
// The sandbox payment page posts plain HTML forms; it does not exist in production. Telegram's
// deliveries carry the webhook secret instead of cookies.
const EXEMPT_PREFIXES = ['/webhooks/', '/sandbox/', '/telegram/webhook'];

/** No Content-Type header and nothing to read: no length (or 0) and no chunked body. */
function isBodyless(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['content-type'] === undefined && req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

export function csrfGuard(opts: { publicUrl: string; cookieNames: string[] }) {
  const publicOrigin = new URL(opts.publicUrl).origin;
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (SAFE_METHODS.has(req.method)) return;
    if (EXEMPT_PREFIXES.some((p) => req.url.startsWith(p))) return;
    // Only the Bearer scheme replaces the cookies; any other Authorization header leaves them in
    // charge and so exempts nothing.
    if (usesBearer(req.headers.authorization)) return;

    const refuse = (why: string) => reply.code(403).send(errorBody(403, `Request blocked: ${why}`));
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];
    const ownOrigin = (o: string) => o === publicOrigin || o === `${req.protocol}://${req.headers.host}`;
    if (origin !== undefined && !ownOrigin(origin)) return refuse('cross-origin request');
    if (origin === undefined && (site === 'cross-site' || site === 'same-site')) return refuse('cross-site request');

    const hasSessionCookie = opts.cookieNames.some((n) => req.cookies[n]);
    if (!hasSessionCookie) return;
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json' && !isBodyless(req)) return refuse('cookie-authenticated changes must be sent as application/json');
    if (origin !== undefined) return;
    if (site === 'same-origin' || site === 'none') return;
    return refuse(site ? 'cross-site request' : 'missing Origin header');
  };
}
