/**
 * The built web app with history fallback: a browser (Accept: text/html) navigating to any path
 * the server does not answer gets index.html; programs get a 404 in the spec's error shape. Without
 * encapsulation: the not-found handler answers for the whole app.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

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

    // `curl localhost:3000` (no Accept: text/html) is told what is here instead of getting a 404;
    // a browser gets the app.
    app.get('/', (req, reply) => {
      if (wantsHtml(req) && hasApp()) return reply.type('text/html').sendFile('index.html');
      return reply.type('text/plain; charset=utf-8').send(ROOT_TEXT);
    });

    app.setNotFoundHandler((req, reply) => {
      // A browser navigating anywhere (a trailing slash, a mistyped /admin/ path) gets the app, which
      // routes or redirects; an unknown API path keeps its 404 status, and programs get the JSON error.
      if (req.method === 'GET' && wantsHtml(req) && hasApp()) {
        return reply
          .code(isUnknownApiPath(req.url) ? 404 : 200)
          .type('text/html')
          .sendFile('index.html');
      }
      return reply.code(404).send({ success: false, error: `Not found: ${req.method} ${req.url.split('?')[0]}` });
    });
  },
  { name: 'web-app' },
);
