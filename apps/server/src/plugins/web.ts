/**
 * The built web app with history fallback: a browser (Accept: text/html) navigating to any path
 * the server does not answer gets index.html; programs get a 404 in the spec's error shape. Without
 * encapsulation: the not-found handler answers for the whole app.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errorBody } from '../error-answer';
import { requestLocale } from '../request-locale';

const API_PREFIXES = ['/auth', '/admin/', '/api/', '/trpc', '/webhooks', '/health', '/sandbox'];
/** The app's own pages that share a prefix with the API (`/admin/` is the admin panel). */
const APP_PAGES = new Set(['/admin', '/api']);

/** Whether a browser's path is an API path the server does not have (the app still shows, with a 404). */
function isUnknownApiPath(url: string): boolean {
  const path = url.split('?')[0]!.replace(/\/+$/, '') || '/';
  return !APP_PAGES.has(path) && API_PREFIXES.some((p) => url.startsWith(p));
}

const ROOT_TEXT = `ProxyHub: residential proxy traffic.
Open this address in a browser for the web app.
API reference: /docs (OpenAPI document: /api/openapi.json); health: /health.
`;

export const webApp = fp(
  async (app: FastifyInstance, opts: { webDistDir?: string | undefined }) => {
    const webDir = opts.webDistDir;
    const index = webDir ? join(webDir, 'index.html') : null;
    if (webDir && index && existsSync(index)) {
      await app.register(fastifyStatic, { root: webDir, wildcard: false, index: false });
    }
    const hasApp = () => index !== null && existsSync(index);
    const wantsHtml = (req: FastifyRequest) => (req.headers.accept ?? '').includes('text/html');
    // The page in the visitor's language from the first paint: <html lang> and the pick the app starts in.
    let page: string | null = null;
    const sendApp = (req: FastifyRequest, reply: FastifyReply, status = 200) => {
      page ??= readFileSync(index!, 'utf8');
      const locale = requestLocale(req);
      return reply
        .code(status)
        .header('vary', 'Accept-Language, Cookie')
        .header('cache-control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(page.replace('<html lang="en">', `<html lang="${locale}" data-locale="${locale}">`));
    };

    // `curl localhost:3000` (no Accept: text/html) is told what is here instead of getting a 404;
    // a browser gets the app.
    app.get('/', (req, reply) => {
      if (wantsHtml(req) && hasApp()) return sendApp(req, reply);
      return reply.type('text/plain; charset=utf-8').send(ROOT_TEXT);
    });

    app.setNotFoundHandler((req, reply) => {
      // A browser navigating anywhere (a trailing slash, a mistyped /admin/ path) gets the app, which
      // routes or redirects; an unknown API path keeps its 404 status, and programs get the JSON error.
      if (req.method === 'GET' && wantsHtml(req) && hasApp()) {
        return sendApp(req, reply, isUnknownApiPath(req.url) ? 404 : 200);
      }
      return reply.code(404).send(errorBody(404, `Not found: ${req.method} ${req.url.split('?')[0]}`));
    });
  },
  { name: 'web-app' },
);
