/**
 * The API's description: `/api/openapi.json` (generated from the REST paths' zod schemas) and a
 * human page at `/docs` drawn by Swagger UI, whose files we serve ourselves (no third-party origin:
 * the Content-Security-Policy allows only ours, and the docs work offline).
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '@proxyhub/api';
import { escapeHtml } from '@proxyhub/core';
import { openApiDocument, type ExtraPath } from '../rest/openapi';
import type { RestRoute } from '../rest/rest';

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** A payment notification's answer: the payment's state after it, and whether it credited the balance. */
const WEBHOOK_ANSWER: ExtraPath['answer'] = {
  description: 'The notification was applied.',
  schema: {
    type: 'object',
    properties: {
      success: { const: true },
      status: { type: 'string', description: 'The payment’s status after the notification.' },
      credited: { type: 'boolean' },
    },
    required: ['success', 'status', 'credited'],
  },
};

/** Plain-HTTP paths that are not REST shims: browser redirects and provider webhooks. */
const EXTRA_PATHS: readonly ExtraPath[] = [
  { method: 'GET', url: '/auth/google', summary: 'Starts Google sign-in (a browser redirect).', security: 'none', answer: 'redirect' },
  { method: 'GET', url: '/auth/google/callback', summary: 'Where Google sends the browser back after sign-in.', security: 'none', answer: 'redirect' },
  { method: 'POST', url: '/webhooks/nowpayments', summary: 'Payment notifications from NOWPayments (signed).', security: 'none', answer: WEBHOOK_ANSWER },
  { method: 'POST', url: '/webhooks/sandbox', summary: 'Payment notifications from the sandbox provider (signed).', security: 'none', answer: WEBHOOK_ANSWER },
  {
    method: 'GET',
    url: '/api/openapi.json',
    summary: 'This document.',
    security: 'none',
    answer: {
      description: 'The OpenAPI 3.1 document.',
      schema: {
        type: 'object',
        properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
        required: ['openapi', 'info', 'paths'],
      },
    },
  },
];

const page = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<main style="font-family: system-ui, sans-serif; max-width: 1460px; margin: 0 auto; padding: 16px 20px 0">
<h1 style="margin: 0 0 8px">${escapeHtml(title)}</h1>
<p data-testid="docs-auth">Authenticate with your API key (Settings &rarr; API key): send the header
<code>Authorization: Bearer &lt;API key&gt;</code> with every request. The machine-readable description is
<a href="/api/openapi.json">/api/openapi.json</a>.</p>
</main>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// A file, not an inline script: the Content-Security-Policy runs scripts from our origin only.
// Tags start closed: the reader opens the area they need. Swagger UI drew no more than 144
// operations at once (past that it dropped to the first few), and the API has more.
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: false, docExpansion: 'none' });\n`;

export async function apiDocs(app: FastifyInstance, { deps, routes }: { deps: ApiDeps; routes: readonly RestRoute[] }) {
  const document = openApiDocument(routes, EXTRA_PATHS, { serverUrl: deps.config.publicUrl, sessionCookieName: deps.sessions.user.cookieName });
  const html = page('ProxyHub API');
  app.get('/api/openapi.json', async () => document);
  app.get('/docs', (_req, reply) => reply.type('text/html; charset=utf-8').send(html));
  app.get('/docs/init.js', (_req, reply) => reply.type('text/javascript; charset=utf-8').send(INIT));
  await app.register(fastifyStatic, {
    root: swaggerUiDir,
    prefix: '/docs/assets/',
    decorateReply: false,
    index: false,
    // Only what the page loads; the package's own index.html and initializer point elsewhere.
    allowedPath: (path) => ['/swagger-ui.css', '/swagger-ui-bundle.js'].includes(path),
  });
}
