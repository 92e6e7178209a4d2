/**
 * The built web app with history fallback: a browser asking for a page that is not an API path
 * gets index.html; anything else unknown is a 404 in the spec's error shape. Without encapsulation:
 * the not-found handler answers for the whole app.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const API_PREFIXES = ['/auth', '/admin/', '/api/', '/trpc', '/webhooks', '/health', '/sandbox'];

export const webApp = fp(
  async (app: FastifyInstance, opts: { webDistDir?: string | undefined }) => {
    const webDir = opts.webDistDir;
    const index = webDir ? join(webDir, 'index.html') : null;
    if (webDir && index && existsSync(index)) {
      await app.register(fastifyStatic, { root: webDir, wildcard: false, index: false });
    }
    app.setNotFoundHandler((req, reply) => {
      const isApi = API_PREFIXES.some((p) => req.url.startsWith(p)) && !(req.url === '/admin' || req.url.startsWith('/admin?'));
      if (req.method === 'GET' && !isApi && index && existsSync(index) && (req.headers.accept ?? '').includes('text/html')) {
        return reply.type('text/html').sendFile('index.html');
      }
      return reply.code(404).send({ success: false, error: `Not found: ${req.method} ${req.url.split('?')[0]}` });
    });
  },
  { name: 'web-app' },
);
