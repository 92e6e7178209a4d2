import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_GATEWAY_BATCH } from '@proxyhub/core';
import { INTERNAL_KEY, startTestServer, type TestServer } from './helpers';
import { rawRequest } from './auth-support';

describe('security headers and basic endpoints', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('GET /health answers ok', async () => {
    const res = await server.client().get('/health');
    expect(res).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it.each(['/health', '/auth/user', '/trpc/auth.me', '/no-such-page'])('%s carries helmet headers', async (path) => {
    const res = await server.client().get(path);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(res.headers.get('x-powered-by')).toBeNull();
    // HSTS only in production: on plain-HTTP development it would pin localhost to HTTPS.
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });

  it('grants no CORS: a preflight from another origin gets no allow headers', async () => {
    const res = await rawRequest(server, {
      method: 'OPTIONS',
      path: '/trpc/auth.login',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(res.status).toBeLessThan(500);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('limits the body size: 413 with a clear error on REST and tRPC', async () => {
    const big = JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(70 * 1024) });
    for (const path of ['/auth/login', '/trpc/auth.login']) {
      const res = await rawRequest(server, { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: big });
      expect(res.status, path).toBe(413);
    }
    const rest = await rawRequest(server, { method: 'POST', path: '/auth/login', headers: { 'content-type': 'application/json' }, body: big });
    expect(rest.json).toEqual({ success: false, error: 'Request body is too large', code: 'REQUEST_BODY_TOO_LARGE' });
    // Without a declared length (chunked) the body is counted as it arrives.
    const chunked = await rawRequest(server, {
      method: 'POST',
      path: '/trpc/auth.login',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: big,
    });
    expect(chunked.status).toBe(413);
  });

  it("lets the internal key send a gateway's large batches to tRPC (a thousand logins), and nobody else", async () => {
    const items = Array.from({ length: MAX_GATEWAY_BATCH }, (_, i) => ({
      proxyUserId: `nosuchuser${i}`,
      password: 'p'.repeat(200),
      location: { country: 'US' },
    }));
    const body = JSON.stringify({ json: { items } });
    expect(body.length).toBeGreaterThan(200 * 1024);
    const headers = { 'content-type': 'application/json' };
    const outsider = await rawRequest(server, { method: 'POST', path: '/trpc/gateway.authorizeMany', headers, body });
    expect(outsider.status).toBe(413);
    const gateway = await rawRequest(server, {
      method: 'POST',
      path: '/trpc/gateway.authorizeMany',
      headers: { ...headers, authorization: `Bearer ${INTERNAL_KEY}` },
      body,
    });
    expect(gateway.status).toBe(200);
    const answers = (gateway.json as { result: { data: { json: { answers: Array<{ account: { ok: boolean } }> } } } }).result.data.json.answers;
    expect(answers).toHaveLength(MAX_GATEWAY_BATCH);
    expect(answers.every((a) => !a.account.ok)).toBe(true);
  });

  it('an unknown API path is a 404 JSON error, also when a browser asks for HTML', async () => {
    for (const path of ['/auth/nothing', '/api/nothing', '/trpc-x']) {
      const res = await server.client().get(path, { accept: 'text/html' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: `Not found: GET ${path}`, code: 'ROUTE_NOT_FOUND' });
    }
    const trpc = await server.client().get('/trpc/auth.nothing');
    expect(trpc.status).toBe(404);
    expect(JSON.stringify(trpc.body)).toContain('NOT_FOUND');
  });

  it('never echoes internals in a 500: no stack in tRPC errors', async () => {
    const res = await server.client().get('/trpc/auth.me');
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe('security headers in production behind https', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ production: true, publicUrl: 'https://proxyhub.example' });
  });
  afterAll(() => server.close());

  it('adds HSTS and upgrade-insecure-requests', async () => {
    const res = await server.client().get('/health');
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(res.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
  });
});
