/**
 * Shared by the fuzz test files. Malformed input over every route and every tRPC procedure the app has registered (enumerated at
 * run time, so routes added later are covered as they land): no 5xx, and every 4xx says why, with its code.
 */
import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { INTERNAL_KEY, signedInUser, startTestServer, type TestServer } from './helpers';
import { rawRequest, type RawResponse } from './auth-support';

export interface Identity {
  name: string;
  headers: Record<string, string>;
}

export interface SweepRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  label: string;
}

/**
 * Each fuzz file's own server (closed after the file), a signed-in user on it and the identities
 * the requests go out as. A function, not module state: the server project runs its files without
 * isolation, so a module is loaded once per worker and shared by the files that worker runs.
 */
export async function fuzzTarget() {
  const server = await startTestServer();
  afterAll(() => server.close());
  const { client: userClient, user } = await signedInUser(server, 'Fuzz Target');
  const IDENTITIES: Identity[] = [
    { name: 'anonymous', headers: {} },
    { name: 'user cookie', headers: { cookie: userClient.cookieHeader(), origin: server.config.publicUrl } },
    { name: 'user api key', headers: { authorization: `Bearer ${user.apiKey}` } },
    { name: 'internal key', headers: { authorization: `Bearer ${INTERNAL_KEY}` } },
  ];
  return {
    server,
    IDENTITIES,
    sweep: (requests: SweepRequest[]) => sweep(server, requests),
    /**
     * The identities a route or procedure lets past its guards, found by sending each one a plain
     * request. Only those reach the input checks and the service, so only they get every odd input;
     * the others are refused by the same guard whatever they send (the guards run before the input
     * is validated), and the body parser in front of the guards gets its inputs once per route.
     */
    admitted: async (probe: Omit<SweepRequest, 'headers' | 'label'>, identities = IDENTITIES) => {
      const admitted: Identity[] = [];
      for (const identity of identities) {
        const res = await rawRequest(server, {
          ...probe,
          headers: { ...identity.headers, ...(probe.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        });
        if (res.status !== 401 && res.status !== 403) admitted.push(identity);
      }
      return admitted;
    },
  };
}

export const FIELD_NAMES = [
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
export const WEIRD_VALUES: unknown[] = [
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

export function deep(n: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < n; i++) v = { a: v, b: [v] };
  return v;
}
export function deepArray(n: number): string {
  return '['.repeat(n) + ']'.repeat(n);
}

/** Objects that put every field name we know of next to strange values. */
export function weirdObjects(): unknown[] {
  return WEIRD_VALUES.map((v) => Object.fromEntries(FIELD_NAMES.map((f) => [f, v])));
}

export interface Payload {
  what: string;
  body?: string | Buffer;
  contentType?: string;
}

export const json = (what: string, v: unknown): Payload => ({ what, body: JSON.stringify(v), contentType: 'application/json' });

/**
 * Bodies the body parser judges before any route sees them (none at all, not JSON, invalid JSON,
 * over the 64 KiB limit): the same code whoever sends them.
 */
export function forTheParser(p: Payload): boolean {
  if (p.body === undefined || p.contentType !== 'application/json' || p.body.length > 64 * 1024) return true;
  try {
    JSON.parse(p.body.toString());
    return false;
  } catch {
    return true;
  }
}

export const BODY_PAYLOADS: Payload[] = [
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

export const QUERY_STRINGS = [
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
export const PARAM_VALUES = ['US', 'zz', '%00', '%2e%2e%2f', 'A'.repeat(300), '%F0%9F%98%80', '1%3BDROP%20TABLE%20users', '%E2%80%AE%ff'];

/** Checks one response; returns a description of what is wrong, or null. */
export function problem(res: RawResponse, path: string): string | null {
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
      const err = item.error as { json?: { message?: unknown; data?: { errorCode?: unknown } }; message?: unknown } | string;
      const message = typeof err === 'string' ? err : (err.json?.message ?? err.message);
      if (typeof message !== 'string' || !message) return `tRPC error without a message: ${JSON.stringify(item).slice(0, 200)}`;
      // Every error carries its code (docs/api-errors.md): tRPC's own shape in data.errorCode, the server's edge answers in code.
      const code = typeof err === 'string' ? item.code : err.json?.data?.errorCode;
      if (typeof code !== 'string' || !code) return `tRPC error without a code: ${JSON.stringify(item).slice(0, 200)}`;
    }
    return null;
  }
  const error = (body as Record<string, unknown>).error;
  if (typeof error !== 'string' || !error.trim()) return `status ${res.status} without an error string: ${res.text.slice(0, 200)}`;
  const code = (body as Record<string, unknown>).code;
  if (typeof code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(code)) return `status ${res.status} without a code: ${res.text.slice(0, 200)}`;
  return null;
}

export function concretePaths(url: string): string[] {
  if (!url.includes(':') && !url.includes('*')) return [url];
  return PARAM_VALUES.map((v) => url.replace(/:[A-Za-z0-9_]+/g, v).replace(/\*/g, v));
}

/** Sends requests a few at a time; collects problems instead of stopping at the first. */
async function sweep(server: TestServer, requests: SweepRequest[]) {
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
export const FUZZ_TIMEOUT_MS = 180_000;
