/**
 * The API is documented: /api/openapi.json describes every REST path the server registers (from
 * the same zod schemas), is a valid OpenAPI 3.1 document, gives every path a summary and the
 * schema of its answer (which real answers match), and /docs is a page served from our own origin
 * that loads it.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRoutes } from '../src/app';
import { openApiPath } from '../src/rest/openapi';
import { adminClient, signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type Operation = {
  summary?: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
};
type Doc = {
  openapi: string;
  info: { description: string };
  components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
  paths: Record<string, Record<string, Operation>>;
};

const getDoc = async () => (await server.client({ origin: null }).get<Doc>('/api/openapi.json')).body;

/** The paths the reference must describe in full. */
const isReferencePath = (path: string) => /^\/(auth|api|admin)\//.test(path);

const successesOf = (op: Operation) => Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));

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

describe('the API reference', () => {
  it('validates against the OpenAPI 3.1 schema', async () => {
    const validator = new Validator();
    const result = await validator.validate(await getDoc());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('gives every /auth, /api and /admin path a one-line summary and the schema of its answer', async () => {
    const doc = await getDoc();
    const gaps: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!isReferencePath(path)) continue;
      for (const [method, op] of Object.entries(ops)) {
        const name = `${method.toUpperCase()} ${path}`;
        if (!op.summary?.trim()) gaps.push(`${name}: no summary (give its restRoute a \`summary\`)`);
        else if (op.summary.includes('\n')) gaps.push(`${name}: the summary is more than one line`);
        const schemas = successesOf(op).flatMap(([, r]) => Object.values(r.content ?? {}).map((c) => c.schema));
        // A bare `{}` or `{ type: 'object' }` says nothing a program can code against.
        const described = schemas.some((schema) => Object.keys(schema).some((k) => !['type', 'description'].includes(k)) || schema.type === 'string');
        const redirects = Object.keys(op.responses).some((status) => /^3\d\d$/.test(status));
        if (!described && !redirects) gaps.push(`${name}: no response schema (give its restRoute a \`response\` zod schema)`);
      }
    }
    expect(gaps).toEqual([]);
  });

  it('describes real answers: what the server sends matches the documented schema', async () => {
    const doc = await getDoc();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const { client: user } = await signedInUser(server);
    const admin = await adminClient(server);
    const keyed = server.client();
    keyed.bearer = (await user.post<{ secret: string }>('/api/keys', { name: 'docs', scopes: ['usage:read', 'accounts:read'] })).body.secret;

    const calls: [HttpClient, string, string, unknown?][] = [
      [user, 'GET', '/auth/user'],
      [keyed, 'GET', '/api/usage'],
      [user, 'GET', '/api/usage?granularity=day'],
      [user, 'GET', '/api/plans'],
      [user, 'GET', '/api/pricing'],
      [user, 'GET', '/api/keys'],
      [user, 'POST', '/api/keys', { name: 'ci', scopes: ['usage:read'] }],
      [keyed, 'GET', '/api/proxy-accounts'],
      [user, 'POST', '/api/proxy-accounts', { name: 'scraper' }],
      [user, 'GET', '/api/billing'],
      [user, 'GET', '/api/connections'],
      [user, 'GET', '/api/alerts'],
      [user, 'GET', '/api/ip-allowlist'],
      [user, 'GET', '/api/referrals'],
      [user, 'GET', '/api/gift-codes'],
      [user, 'GET', '/api/webhooks'],
      [user, 'GET', '/api/locations/countries'],
      [user, 'GET', '/api/status'],
      [admin, 'GET', '/auth/admin/me'],
      [admin, 'POST', '/admin/plans', { name: 'Docs plan', gbPerPeriod: 10, priceCents: 2500, period: 'month' }],
      [admin, 'GET', '/admin/plans'],
      [admin, 'GET', '/admin/users'],
      [admin, 'GET', '/admin/users?page=1&pageSize=5'],
      [admin, 'GET', '/admin/usage/global'],
      [admin, 'GET', '/admin/audit-log'],
      [admin, 'GET', '/admin/upstreams'],
      [admin, 'GET', '/admin/admins'],
    ];
    for (const [client, method, url, body] of calls) {
      const path = openApiPath(url.split('?')[0]!);
      const op = doc.paths[path]?.[method.toLowerCase()];
      expect(op, `${method} ${path} is documented`).toBeDefined();
      const r = await client.request<unknown>(method, url, body);
      const [status, success] = successesOf(op!)[0]!;
      expect({ call: `${method} ${url}`, status: r.status }).toEqual({ call: `${method} ${url}`, status: Number(status) });
      const validate = ajv.compile(success.content!['application/json']!.schema);
      expect({ call: `${method} ${url}`, valid: validate(r.body), errors: validate.errors ?? null }).toEqual({
        call: `${method} ${url}`,
        valid: true,
        errors: null,
      });
    }
  });
});

describe('the README’s calls with a key', () => {
  it('one REST path and one tRPC procedure answer a usage:read key the same usage', async () => {
    const { client: user } = await signedInUser(server);
    const keyed = server.client({ origin: null });
    keyed.bearer = (await user.post<{ secret: string }>('/api/keys', { name: 'readme', scopes: ['usage:read'] })).body.secret;
    const rest = await keyed.get<{ points: unknown[] }>('/api/usage?granularity=day');
    expect(rest.status).toBe(200);
    const input = encodeURIComponent(JSON.stringify({ json: { granularity: 'day' } }));
    const trpc = await keyed.get<{ result: { data: { json: { points: unknown[] } } } }>(`/trpc/usage.history?input=${input}`);
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.json.points).toHaveLength(rest.body.points.length);
    keyed.bearer = (await user.post<{ secret: string }>('/api/keys', { name: 'other', scopes: ['accounts:read'] })).body.secret;
    expect(await keyed.get('/api/usage?granularity=day')).toMatchObject({ status: 403, body: { success: false, error: 'Missing scope: usage:read' } });
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
