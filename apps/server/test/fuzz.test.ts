/**
 * Malformed input over every REST route the app has registered (enumerated at run time, so routes
 * added later are covered as they land): no 5xx, and every 4xx says why. tRPC: fuzz-trpc.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { listRoutes } from '../src/app';
import { rawRequest } from './auth-support';
import { BODY_PAYLOADS, FUZZ_TIMEOUT_MS, QUERY_STRINGS, concretePaths, forTheParser, fuzzTarget } from './fuzz-kit';

const { server, IDENTITIES, sweep, admitted } = await fuzzTarget();

const NOT_FUZZED = new Set(['/auth/logout']); // would end the fuzzing user's own session; covered in auth-login
const routes = listRoutes(server.app).filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS' && !r.url.startsWith('/trpc'));
const uniqueRoutes = [...new Map(routes.map((r) => [`${r.method} ${r.url}`, r])).values()];

describe('fuzz: every REST route', () => {
  it('found the routes of the spec', () => {
    const names = uniqueRoutes.map((r) => `${r.method} ${r.url}`);
    for (const r of [
      'GET /auth/user',
      'POST /auth/register',
      'POST /auth/login',
      'GET /auth/verify-email',
      'POST /auth/reset-password',
      'GET /health',
      'GET /auth/google',
    ]) {
      expect(names).toContain(r);
    }
  });

  it.each(uniqueRoutes.map((r) => [`${r.method} ${r.url}`, r] as const))(
    '%s: no 5xx, every 4xx has an error',
    async (_name, route) => {
      const requests: Parameters<typeof sweep>[0] = [];
      const paths = concretePaths(route.url);
      const [first] = paths as [string, ...string[]];
      const identities = IDENTITIES.filter((i) => !(i.name === 'user cookie' && NOT_FUZZED.has(route.url)));
      const through = await admitted({ method: route.method, path: first, ...(route.method === 'GET' ? {} : { body: '{}' }) }, identities);
      const withBody = route.method !== 'GET';
      for (const identity of identities) {
        // Every path parameter as every identity; odd query strings and bodies on the first path, as
        // the identities that get past the route's guard (a path parameter, the query string and
        // the body are read apart, so their combinations add nothing).
        for (const path of paths) requests.push({ method: route.method, path, headers: identity.headers, label: `${identity.name} plain` });
        const past = through.includes(identity);
        for (const qs of past ? QUERY_STRINGS.filter(Boolean) : [])
          requests.push({ method: route.method, path: first + qs, headers: identity.headers, label: `${identity.name} query` });
        // The body parser runs before the guard: its inputs once per route (anonymous), the rest
        // as every identity the guard lets through.
        for (const p of withBody ? BODY_PAYLOADS : []) {
          if (!past && !(identity.name === 'anonymous' && forTheParser(p))) continue;
          const headers = { ...identity.headers, ...(p.contentType ? { 'content-type': p.contentType } : {}) };
          requests.push({ method: route.method, path: first, headers, ...(p.body !== undefined ? { body: p.body } : {}), label: `${identity.name} ${p.what}` });
        }
      }
      const problems = await sweep(requests);
      expect(problems).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );

  it('answers an oversized body with 413 and a clear error', async () => {
    const res = await rawRequest(server, {
      method: 'POST',
      path: '/auth/register',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a'.repeat(100 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ success: false, error: 'Request body is too large', code: 'REQUEST_BODY_TOO_LARGE' });
    const trpc = await rawRequest(server, {
      method: 'POST',
      path: '/trpc/auth.register',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ json: { email: 'a'.repeat(100 * 1024) } }),
    });
    expect(trpc.status).toBe(413);
  });

  it('refuses NUL characters (PostgreSQL text cannot hold them) with 400 instead of a database error', async () => {
    const c = server.client();
    const login = await c.post('/auth/login', { email: 'nul\u0000@example.com', password: 'Secret123' });
    expect(login).toMatchObject({ status: 400, body: { success: false, error: 'Input contains invalid characters' } });
    const email = `nul-${Date.now()}@example.com`;
    const reg = await c.post('/auth/register', { email, password: 'Secret123', name: 'Nul\u0000Name' });
    expect(reg).toMatchObject({ status: 400, body: { success: false, error: 'Input contains invalid characters' } });
    expect((await c.post('/auth/login', { email, password: 'Secret123' })).status).toBe(401);
    const forgot = await c.post('/auth/forgot-password', { ['em\u0000ail']: 'x', email: 'a@b.co' });
    expect(forgot.status).toBe(400);
    const verify = await c.get('/auth/verify-email?token=abc%00def');
    expect(verify).toMatchObject({ status: 400, body: { success: false, error: 'Input contains invalid characters' } });
  });

  it('answers malformed JSON with 400 "Malformed JSON body"', async () => {
    const res = await rawRequest(server, { method: 'POST', path: '/auth/login', headers: { 'content-type': 'application/json' }, body: '{"email":' });
    expect(res).toMatchObject({ status: 400, json: { success: false, error: 'Malformed JSON body' } });
  });

  it('unknown API paths get a 404 JSON error', async () => {
    for (const path of ['/auth/nope', '/api/nope', '/admin/nope', '/webhooks/nope', '/trpc-nope']) {
      const res = await rawRequest(server, { method: 'GET', path, headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(404);
      expect((res.json as { error: string }).error).toMatch(/^Not found/);
    }
    const post = await rawRequest(server, { method: 'POST', path: '/auth/nope', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(post).toMatchObject({ status: 404, json: { success: false, error: 'Not found: POST /auth/nope' } });
  });
});
