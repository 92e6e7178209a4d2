/**
 * The API is documented: /api/openapi.json describes every REST path the server registers (from
 * the same zod schemas), and /docs is a page served from our own origin that loads it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRoutes } from '../src/app';
import { openApiPath } from '../src/rest/openapi';
import { signedInUser, startTestServer, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type Doc = {
  openapi: string;
  info: { description: string };
  components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema: unknown }> } }>>;
};

/** Paths a program calls over plain HTTP (not tRPC, the web app's files or the docs page itself). */
const isRestPath = (url: string) => /^\/(auth|admin|api|webhooks)(\/|$)/.test(url) && url !== '/admin';

describe('/api/openapi.json', () => {
  it('is OpenAPI 3.1 and holds every registered REST route with its method', async () => {
    const r = await server.client({ origin: null }).get<Doc>('/api/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    const doc = r.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.apiKey).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.info.description).toContain('Authorization: Bearer');

    const registered = listRoutes(server.app).filter((x) => !['HEAD', 'OPTIONS'].includes(x.method) && isRestPath(x.url));
    expect(registered.length).toBeGreaterThan(20);
    const missing = registered.filter((x) => !doc.paths[openApiPath(x.url)]?.[x.method.toLowerCase()]).map((x) => `${x.method} ${x.url}`);
    expect(missing).toEqual([]);
  });

  it('describes inputs from the procedures’ schemas: JSON bodies, query strings and path parameters', async () => {
    const doc = (await server.client({ origin: null }).get<Doc>('/api/openapi.json')).body;
    const register = doc.paths['/auth/register']!.post!.requestBody!.content['application/json']!.schema;
    expect(register).toMatchObject({ type: 'object', required: expect.arrayContaining(['email', 'password', 'name']) });
    expect(doc.paths['/admin/users']!.get!.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'page', in: 'query' })]));
    for (const [path, ops] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(ops)) {
        const inPath = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        if (names.length && inPath.length) expect(inPath.sort(), path).toEqual(names.sort());
      }
    }
  });
});

describe('/docs', () => {
  it('is a page from our origin that loads the document and says how to use the API key', async () => {
    const client = server.client({ origin: null });
    const page = await client.get<string>('/docs', { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('Authorization: Bearer &lt;API key&gt;');
    const scripts = [...page.body.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    const styles = [...page.body.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    // Everything it loads comes from here (the Content-Security-Policy allows nothing else).
    for (const src of [...scripts, ...styles]) {
      expect(src.startsWith('/')).toBe(true);
      const asset = await client.get<string>(src);
      expect({ src, status: asset.status }).toEqual({ src, status: 200 });
    }
    expect((await client.get<string>('/docs/init.js')).body).toContain("'/api/openapi.json'");
    // Only the files the page needs are served from the package.
    expect((await client.get('/docs/assets/index.html')).status).toBe(404);
  });

  it('works for a signed-in user too (the docs need no session)', async () => {
    const { client } = await signedInUser(server);
    expect((await client.get('/api/openapi.json')).status).toBe(200);
  });
});
