/**
 * Malformed input over every tRPC procedure, deep nesting and out-of-range dates: no 5xx, and
 * every 4xx says why. REST routes: fuzz.test.ts.
 */
import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { appRouter, type AppRouter } from '@proxyhub/api';
import { topupCodes } from '@proxyhub/db';
import { rawRequest } from './auth-support';
import { adminClient, expectLedgerOk, sessionClient } from './credits-helpers';
import { FUZZ_TIMEOUT_MS, QUERY_STRINGS, deep, deepArray, fuzzTarget, weirdObjects } from './fuzz-kit';

const { server, IDENTITIES, sweep, admitted } = await fuzzTarget();

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
      const identities = IDENTITIES.filter((i) => !(i.name === 'user cookie' && path.endsWith('.logout')));
      const probe =
        type === 'mutation'
          ? { method: 'POST', path: `/trpc/${path}`, body: '{"json":{}}' }
          : { method: 'GET', path: `/trpc/${path}?input=%7B%22json%22%3A%7B%7D%7D` };
      const through = await admitted(probe, identities);
      for (const identity of identities) {
        const headers = { ...identity.headers, 'content-type': 'application/json' };
        // Every input as the identities the procedure's guard lets through; the others are refused
        // before the input is read, whatever it is. Bodies that are not a tRPC input at all (the
        // adapter reads them before any procedure) go once per procedure, as anonymous.
        const past = through.includes(identity);
        const raw = past || identity.name === 'anonymous';
        // The user's key reaches the same account as their cookie: past the guard (which the probe
        // above tried with the key), its inputs would meet the same checks and service.
        const inputs = past && !(identity.name === 'user api key' && through.some((i) => i.name === 'user cookie')) ? TRPC_INPUTS : [];
        if (type === 'mutation') {
          for (const input of inputs)
            requests.push({ method: 'POST', path: `/trpc/${path}`, headers, body: JSON.stringify({ json: input }), label: identity.name });
          for (const body of raw ? RAW_TRPC_BODIES : [])
            requests.push({ method: 'POST', path: `/trpc/${path}`, headers, body, label: `${identity.name} raw ${body.slice(0, 30)}` });
          for (const body of raw ? RAW_TRPC_BODIES.slice(0, 6) : [])
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
          for (const input of inputs)
            requests.push({ method: 'GET', path: `/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, headers, label: identity.name });
          for (const qs of raw ? QUERY_STRINGS : [])
            requests.push({ method: 'GET', path: `/trpc/${path}${qs}`, headers, label: `${identity.name} query string` });
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
  const TOO_DEEP = { success: false, error: 'JSON is nested too deeply (at most 64 levels)', code: 'JSON_TOO_DEEP' };
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
        res: { status: 400, body: { success: false, error: 'Expiry must be before the year 10000', code: 'EXPIRY_BEFORE_YEAR_10000' } },
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
