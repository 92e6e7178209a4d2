/**
 * Malformed input over every route and every tRPC procedure the app has registered (enumerated at
 * run time, so routes added later are covered as they land): no 5xx, and every 4xx says why.
 */
import { randomBytes } from 'node:crypto';
import { TRPCClientError } from '@trpc/client';
import { afterAll, describe, expect, it } from 'vitest';
import { appRouter, type AppRouter } from '@proxyhub/api';
import { topupCodes } from '@proxyhub/db';
import { listRoutes } from '../src/app';
import { INTERNAL_KEY, signedInUser, startTestServer } from './helpers';
import { rawRequest, type RawResponse } from './auth-support';
import { adminClient, expectLedgerOk, sessionClient } from './credits-helpers';

const server = await startTestServer();
afterAll(() => server.close());
const { client: userClient, user } = await signedInUser(server, 'Fuzz Target');
const PUBLIC = server.config.publicUrl;

interface Identity {
  name: string;
  headers: Record<string, string>;
}
const IDENTITIES: Identity[] = [
  { name: 'anonymous', headers: {} },
  { name: 'user cookie', headers: { cookie: userClient.cookieHeader(), origin: PUBLIC } },
  { name: 'user api key', headers: { authorization: `Bearer ${user.apiKey}` } },
  { name: 'internal key', headers: { authorization: `Bearer ${INTERNAL_KEY}` } },
];

const FIELD_NAMES = [
  'email',
  'password',
  'name',
  'token',
  'code',
  'batchId',
  'gbAmount',
  'priceUsd',
  'creditsGB',
  'quantity',
  'expiresAt',
  'username',
  'accounts',
  'usageType',
  'search',
  'page',
  'pageSize',
  'country',
  'state',
  'city',
  'paymentId',
  'status',
  'gatewayId',
  'sequence',
  'proxyUserId',
  'bytes',
  'leaseBytes',
  'reports',
  'leases',
  'id',
];
const WEIRD_VALUES: unknown[] = [
  null,
  [],
  [1, 'a', null],
  {},
  { $gt: '' },
  -1,
  0,
  1.5,
  1e308,
  -1e308,
  true,
  '',
  ' ',
  'A'.repeat(20_000),
  '\u0000\u202e\ud83d',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '9'.repeat(400),
  'NaN',
  '2026-13-45T99:99:99Z',
];

function deep(n: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < n; i++) v = { a: v, b: [v] };
  return v;
}
function deepArray(n: number): string {
  return '['.repeat(n) + ']'.repeat(n);
}

/** Objects that put every field name we know of next to strange values. */
function weirdObjects(): unknown[] {
  return WEIRD_VALUES.map((v) => Object.fromEntries(FIELD_NAMES.map((f) => [f, v])));
}

interface Payload {
  what: string;
  body?: string | Buffer;
  contentType?: string;
}

const json = (what: string, v: unknown): Payload => ({ what, body: JSON.stringify(v), contentType: 'application/json' });

const BODY_PAYLOADS: Payload[] = [
  { what: 'invalid JSON: open brace', body: '{', contentType: 'application/json' },
  { what: 'invalid JSON: truncated', body: '{"email": "a@b.co", "password":', contentType: 'application/json' },
  { what: 'invalid JSON: single quotes', body: "{'a': 1}", contentType: 'application/json' },
  { what: 'invalid JSON: trailing comma', body: '{"a": 1,}', contentType: 'application/json' },
  { what: 'invalid JSON: bare word', body: 'undefined', contentType: 'application/json' },
  { what: 'empty body with JSON type', body: '', contentType: 'application/json' },
  { what: 'no body, no type' },
  json('null', null),
  json('empty array', []),
  json('array of objects', [{ email: 'a@b.co' }]),
  json('number', 42),
  json('string', 'hello'),
  json('boolean', false),
  json('empty object', {}),
  json('unknown fields', { foo: 'bar', extra: [1, 2, 3], nested: { x: { y: 1 } } }),
  json('deeply nested object', deep(12)),
  { what: 'deeply nested arrays', body: deepArray(2000), contentType: 'application/json' },
  { what: 'prototype pollution', body: '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}', contentType: 'application/json' },
  ...weirdObjects().map((o, i) => json(`weird field values #${i}`, o)),
  json('long strings within the body limit', Object.fromEntries(FIELD_NAMES.map((f) => [f, 'x'.repeat(1500)]))),
  { what: 'body over the limit', body: JSON.stringify({ email: 'a'.repeat(200 * 1024) }), contentType: 'application/json' },
  { what: 'text/plain JSON', body: '{"email":"a@b.co"}', contentType: 'text/plain' },
  { what: 'form-urlencoded', body: 'email=a%40b.co&password=x', contentType: 'application/x-www-form-urlencoded' },
  { what: 'multipart', body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n', contentType: 'multipart/form-data; boundary=x' },
  { what: 'xml', body: '<?xml version="1.0"?><a/>', contentType: 'application/xml' },
  { what: 'JSON with odd charset', body: '{"a":1}', contentType: 'application/json; charset=latin1' },
  { what: 'random bytes as JSON', body: randomBytes(2048), contentType: 'application/json' },
  { what: 'random bytes as octet-stream', body: randomBytes(2048), contentType: 'application/octet-stream' },
  { what: 'invalid UTF-8', body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), contentType: 'application/json' },
];

const QUERY_STRINGS = [
  '',
  '?',
  '?a',
  '?=',
  '?%',
  '?%%zz',
  '?token[]=1',
  '?token[a][b]=c',
  '?token=a&token=b',
  `?token=${'t'.repeat(8000)}`,
  '?__proto__[polluted]=1&constructor[prototype][x]=1',
  '?page=-1&pageSize=abc&search=%00%ff',
  '?input=%7B',
  '?input=null',
  '?batch=1&input=garbage',
  '?batch=1&input=%7B%220%22%3A%7B%22json%22%3A1e999%7D%7D',
  '?code=a&state=b&error=',
  `?search=${encodeURIComponent('\u202e😀\u0000')}`,
];

// Already URL-encoded: they go into the path as they are.
const PARAM_VALUES = ['US', 'zz', '%00', '%2e%2e%2f', 'A'.repeat(300), '%F0%9F%98%80', '1%3BDROP%20TABLE%20users', '%E2%80%AE%ff'];

/** Checks one response; returns a description of what is wrong, or null. */
function problem(res: RawResponse, path: string): string | null {
  if (res.status >= 500) return `status ${res.status}: ${res.text.slice(0, 300)}`;
  if (res.status < 400) return null;
  const body = res.json as Record<string, unknown> | unknown[] | undefined;
  // Pages for people (the sandbox payment page) answer in HTML with a title that says why.
  if (body === undefined && String(res.headers['content-type']).startsWith('text/html') && /<title>[^<]+<\/title>/.test(res.text)) return null;
  if (body === undefined) return `status ${res.status} without a JSON body: ${res.text.slice(0, 200)}`;
  if (path.startsWith('/trpc')) {
    const items = Array.isArray(body) ? body : [body];
    for (const item of items as Record<string, unknown>[]) {
      if (!('error' in item)) {
        if ('result' in item) continue;
        return `tRPC item without error or result: ${JSON.stringify(item).slice(0, 200)}`;
      }
      const err = item.error as { json?: { message?: unknown }; message?: unknown } | string;
      const message = typeof err === 'string' ? err : (err.json?.message ?? err.message);
      if (typeof message !== 'string' || !message) return `tRPC error without a message: ${JSON.stringify(item).slice(0, 200)}`;
    }
    return null;
  }
  const error = (body as Record<string, unknown>).error;
  if (typeof error !== 'string' || !error.trim()) return `status ${res.status} without an error string: ${res.text.slice(0, 200)}`;
  return null;
}

function concretePaths(url: string): string[] {
  if (!url.includes(':') && !url.includes('*')) return [url];
  return PARAM_VALUES.map((v) => url.replace(/:[A-Za-z0-9_]+/g, v).replace(/\*/g, v));
}

/** Sends requests a few at a time; collects problems instead of stopping at the first. */
async function sweep(requests: { method: string; path: string; headers: Record<string, string>; body?: string | Buffer; label: string }[]) {
  const problems: string[] = [];
  const queue = [...requests];
  const worker = async () => {
    for (let r = queue.shift(); r; r = queue.shift()) {
      let res: RawResponse;
      try {
        res = await rawRequest(server, { method: r.method, path: r.path, headers: r.headers, ...(r.body !== undefined ? { body: r.body } : {}) });
      } catch (err) {
        // Node itself answers a request line over its 16 KiB header limit with 431 and closes the
        // socket, which the client may see as a reset: expected, not a server error.
        if (r.path.length > 16_000) continue;
        problems.push(`${r.method} ${r.path.slice(0, 120)} [${r.label}]: ${String(err)}`);
        continue;
      }
      if (r.path.length > 16_000 && res.status === 431) continue;
      const p = problem(res, r.path);
      if (p) problems.push(`${r.method} ${r.path.slice(0, 120)} [${r.label}]: ${p}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return problems;
}

// Hundreds of requests per test: generous, for CI machines running every test file at once.
const FUZZ_TIMEOUT_MS = 180_000;

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
      for (const path of concretePaths(route.url)) {
        for (const identity of IDENTITIES) {
          if (identity.name === 'user cookie' && NOT_FUZZED.has(route.url)) continue;
          for (const qs of QUERY_STRINGS) requests.push({ method: route.method, path: path + qs, headers: identity.headers, label: `${identity.name} query` });
          if (route.method !== 'GET') {
            for (const p of BODY_PAYLOADS) {
              const headers = { ...identity.headers, ...(p.contentType ? { 'content-type': p.contentType } : {}) };
              requests.push({ method: route.method, path, headers, ...(p.body !== undefined ? { body: p.body } : {}), label: `${identity.name} ${p.what}` });
            }
          }
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
    expect(res.json).toEqual({ success: false, error: 'Request body is too large' });
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

type ProcedureRecord = Record<string, { _def: { type: 'query' | 'mutation' | 'subscription' } }>;
const procedures = Object.entries((appRouter._def as unknown as { procedures: ProcedureRecord }).procedures);

const TRPC_INPUTS: unknown[] = [null, [], 42, 'text', true, {}, { foo: 'bar' }, deep(10), ...weirdObjects()];
const RAW_TRPC_BODIES: string[] = [
  '{',
  '',
  'null',
  '[]',
  '{"json":',
  '{"email":"a@b.co"}',
  '{"json":{"a":"x"},"meta":{"values":{"a":["bigint"]}}}',
  '{"json":"not a date","meta":{"values":["Date"]}}',
  '{"json":{},"meta":{"values":{"__proto__":["Date"]}}}',
  '{"json":{"a":1},"meta":{"values":{"a":[["custom","nope"]]}}}',
  '{"json":{"a":1},"meta":{"values":"garbage","referentialEqualities":{"a":["b"]}}}',
  '{"0":{"json":{}}}',
];

describe('fuzz: every tRPC procedure', () => {
  it('found the account procedures', () => {
    expect(procedures.map(([p]) => p)).toEqual(expect.arrayContaining(['auth.me', 'auth.register', 'auth.login', 'auth.resetPassword', 'gateway.endpoint']));
  });

  it.each(procedures.map(([path, p]) => [path, p._def.type] as const))(
    '%s (%s): bad input gets a 4xx with a message',
    async (path, type) => {
      const requests: Parameters<typeof sweep>[0] = [];
      for (const identity of IDENTITIES) {
        if (identity.name === 'user cookie' && path.endsWith('.logout')) continue;
        const headers = { ...identity.headers, 'content-type': 'application/json' };
        if (type === 'mutation') {
          for (const input of TRPC_INPUTS)
            requests.push({ method: 'POST', path: `/trpc/${path}`, headers, body: JSON.stringify({ json: input }), label: identity.name });
          for (const body of RAW_TRPC_BODIES)
            requests.push({ method: 'POST', path: `/trpc/${path}`, headers, body, label: `${identity.name} raw ${body.slice(0, 30)}` });
          for (const body of RAW_TRPC_BODIES.slice(0, 6))
            requests.push({ method: 'POST', path: `/trpc/${path}?batch=1`, headers, body, label: `${identity.name} batch raw` });
          requests.push({
            method: 'POST',
            path: `/trpc/${path}?batch=1`,
            headers,
            body: JSON.stringify({ 0: { json: null }, 1: { json: [] } }),
            label: `${identity.name} batch`,
          });
          requests.push({ method: 'GET', path: `/trpc/${path}`, headers, label: `${identity.name} mutation by GET` });
        } else {
          for (const input of TRPC_INPUTS)
            requests.push({ method: 'GET', path: `/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, headers, label: identity.name });
          for (const qs of QUERY_STRINGS) requests.push({ method: 'GET', path: `/trpc/${path}${qs}`, headers, label: `${identity.name} query string` });
          requests.push({
            method: 'GET',
            path: `/trpc/${path},${path}?batch=1&input=${encodeURIComponent('{"0":{"json":null},"1":"x"}')}`,
            headers,
            label: `${identity.name} batch`,
          });
          requests.push({ method: 'POST', path: `/trpc/${path}`, headers, body: '{}', label: `${identity.name} query by POST` });
        }
      }
      const problems = await sweep(requests);
      expect(problems).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );

  it('unknown procedures and oversized batches are refused cleanly', async () => {
    const problems = await sweep(
      [
        '/trpc/nope',
        '/trpc/auth',
        '/trpc/auth.me.deeper',
        '/trpc/,,,',
        '/trpc/auth.me,nope?batch=1&input=%7B%7D',
        `/trpc/${Array.from({ length: 60 }, () => 'gateway.endpoint').join(',')}?batch=1&input=%7B%7D`,
      ].map((path) => ({ method: 'GET', path, headers: {}, label: 'path' })),
    );
    expect(problems).toEqual([]);
    const big = await rawRequest(server, {
      method: 'GET',
      path: `/trpc/${Array.from({ length: 60 }, () => 'gateway.endpoint').join(',')}?batch=1&input=%7B%7D`,
      headers: {},
    });
    expect(big.status).toBe(400);
  });
});

describe('fuzz: nesting and dates out of range', () => {
  const TOO_DEEP = { success: false, error: 'JSON is nested too deeply (at most 64 levels)' };
  const hexSig = 'ab'.repeat(64);

  it('30,000 nested arrays to either webhook, any signature: 400 with the reason, nothing credited', async () => {
    const body = deepArray(30_000);
    for (const [path, header] of [
      ['/webhooks/sandbox', 'x-sandbox-sig'],
      ['/webhooks/nowpayments', 'x-nowpayments-sig'],
    ] as const) {
      for (const sig of [hexSig, 'junk', undefined]) {
        const headers: Record<string, string> = { 'content-type': 'application/json', ...(sig ? { [header]: sig } : {}) };
        const res = await rawRequest(server, { method: 'POST', path, headers, body });
        expect({ path, sig, status: res.status, json: res.json }).toEqual({ path, sig, status: 400, json: TOO_DEEP });
        // Deep inside an object too: the bound counts objects and arrays alike.
        const wrapped = await rawRequest(server, {
          method: 'POST',
          path,
          headers,
          body: `{"order_id":"x","payment_status":"finished","x":${deepArray(20_000)}}`,
        });
        expect(wrapped.status).toBe(400);
      }
    }
  });

  it('the bound holds on every kind of route, tRPC bodies and ?input= included, and leaves shallow JSON alone', async () => {
    const body = deepArray(30_000);
    const json = { 'content-type': 'application/json' };
    for (const path of ['/auth/login', '/auth/register', '/admin/codes/create', '/trpc/auth.login', '/trpc/auth.login?batch=1']) {
      const res = await rawRequest(server, { method: 'POST', path, headers: json, body });
      expect({ path, status: res.status, json: res.json }).toEqual({ path, status: 400, json: TOO_DEEP });
    }
    // Brackets inside strings do not count; 64 levels are fine.
    const ok = await rawRequest(server, {
      method: 'POST',
      path: '/auth/login',
      headers: json,
      body: JSON.stringify({ email: '['.repeat(5000), password: 'x' }),
    });
    expect(ok.status).toBe(400);
    expect((ok.json as { error: string }).error).not.toMatch(/nested/);
    const atBound = await rawRequest(server, { method: 'POST', path: '/auth/login', headers: json, body: `{"a":${deepArray(63)}}` });
    expect((atBound.json as { error: string }).error).not.toMatch(/nested/);
    // A query's input travels in the URL (Node caps it at 16 KiB, room for 7,000 levels).
    const get = await rawRequest(server, { method: 'GET', path: `/trpc/auth.me?input=${deepArray(7000)}`, headers: {} });
    expect(get).toMatchObject({ status: 400, json: TOO_DEEP });
    const batch = await rawRequest(server, { method: 'GET', path: `/trpc/auth.me,auth.me?batch=1&input=${deepArray(7000)}`, headers: {} });
    expect(batch).toMatchObject({ status: 400, json: TOO_DEEP });
  });

  it('createCodes with the last date JavaScript has: 400 with the reason, no code minted (REST and tRPC)', async () => {
    const admin = await adminClient(server);
    const before = (await server.deps.db.select().from(topupCodes)).length;
    for (const expiresAt of ['+275760-09-13T00:00:00.000Z', '+010000-01-01T00:00:00.000Z']) {
      const res = await admin.post('/admin/codes/create', { creditsGB: 1, quantity: 1, expiresAt });
      expect({ expiresAt, res: { status: res.status, body: res.body } }).toEqual({
        expiresAt,
        res: { status: 400, body: { success: false, error: 'Expiry must be before the year 10000' } },
      });
    }
    const trpc = sessionClient(server, admin);
    const err = (await trpc.admin.createCodes
      .mutate({ creditsGB: 1, quantity: 1, expiresAt: new Date(8.64e15) })
      .catch((e: unknown) => e)) as TRPCClientError<AppRouter>;
    expect(err).toBeInstanceOf(TRPCClientError);
    expect(err.message).toBe('Expiry must be before the year 10000');
    expect(err.data?.httpStatus).toBe(400);
    expect((await server.deps.db.select().from(topupCodes)).length).toBe(before);
    // The last moment of the year 9999 is stored and read back as it was sent.
    const last = await admin.post<{ codes: { expiresAt: string }[] }>('/admin/codes/create', {
      creditsGB: 1,
      quantity: 1,
      expiresAt: '9999-12-31T23:59:59.999Z',
    });
    expect(last.status).toBe(200);
    expect(new Date(last.body.codes[0]!.expiresAt).toISOString()).toBe('9999-12-31T23:59:59.999Z');
    await expectLedgerOk(server);
  });
});
