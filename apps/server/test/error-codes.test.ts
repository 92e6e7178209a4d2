/**
 * Error codes as callers see them: a REST error answer carries `code` beside its English `error`
 * (and every field it had), a tRPC error `data.errorCode` with the text's varying parts in
 * `data.errorParams` (docs/api-errors.md). The fuzz tests check that every 4xx has a code.
 */
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '@proxyhub/api';
import { adminClient, expectLedgerOk, trpcClient } from './credits-helpers';
import { signedInUser, startTestServer, STRONG_PASSWORD, trpcFor, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let user: HttpClient;
let email: string;
beforeAll(async () => {
  server = await startTestServer();
  const signedIn = await signedInUser(server, 'Coded Errors');
  user = signedIn.client;
  email = signedIn.email;
});
afterAll(() => server.close());

/** The tRPC error a call ends in. */
async function trpcError(call: Promise<unknown>) {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCClientError);
  return err as TRPCClientError<AppRouter>;
}
const coded = (err: TRPCClientError<AppRouter>) => {
  const data = err.data as { code?: string; httpStatus?: number; errorCode?: string; errorParams?: Record<string, string> | null } | undefined;
  return { message: err.message, status: data?.httpStatus, kind: data?.code, code: data?.errorCode, params: data?.errorParams };
};

describe('error codes', () => {
  it('a wrong password: INVALID_CREDENTIALS over REST and tRPC', async () => {
    const rest = await server.client().post('/auth/login', { email, password: `${STRONG_PASSWORD}x` });
    expect({ status: rest.status, body: rest.body }).toEqual({
      status: 401,
      body: { success: false, error: 'Invalid email or password', code: 'INVALID_CREDENTIALS', requiresVerification: false },
    });
    const err = await trpcError(trpcClient(server).auth.login.mutate({ email, password: `${STRONG_PASSWORD}x` }));
    expect(coded(err)).toEqual({ message: 'Invalid email or password', status: 401, kind: 'UNAUTHORIZED', code: 'INVALID_CREDENTIALS', params: {} });
  });

  it('a used top-up code: CODE_ALREADY_USED', async () => {
    const admin = await adminClient(server);
    const minted = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: 1, quantity: 1, expiresAt: null });
    const code = minted.body.codes[0]!.code;
    expect((await user.post('/auth/redeem-code', { code })).status).toBe(200);
    const again = await user.post('/auth/redeem-code', { code });
    expect({ status: again.status, body: again.body }).toEqual({
      status: 409,
      body: { success: false, error: 'This code has already been redeemed.', code: 'CODE_ALREADY_USED' },
    });
    const err = await trpcError(trpcFor(server, user).credits.redeem.mutate({ code }));
    expect(coded(err)).toMatchObject({ message: 'This code has already been redeemed.', status: 409, code: 'CODE_ALREADY_USED' });
    await expectLedgerOk(server);
  });

  it('below the minimum order: MIN_ORDER, its figures as params', async () => {
    const rest = await user.post('/auth/create-crypto-payment', { gbAmount: 11, priceUsd: 9.9 });
    expect({ status: rest.status, body: rest.body }).toEqual({
      status: 400,
      body: { success: false, error: 'Minimum order is 12GB ($10)', code: 'MIN_ORDER' },
    });
    const err = await trpcError(trpcFor(server, user).credits.createCryptoPayment.mutate({ gbAmount: 11, priceUsd: 9.9 }));
    expect(coded(err)).toMatchObject({ message: 'Minimum order is 12GB ($10)', status: 400, code: 'MIN_ORDER', params: { gb: '12', usd: '10' } });
  });

  it('a key without the scope: MISSING_SCOPE, the scope as a param', async () => {
    const made = await user.post<{ secret: string }>('/api/keys', { name: 'usage only', scopes: ['usage:read'] });
    expect(made.status).toBe(201);
    const key = server.client();
    key.bearer = made.body.secret;
    const rest = await key.get('/api/proxy-accounts');
    expect({ status: rest.status, body: rest.body }).toEqual({
      status: 403,
      body: { success: false, error: 'Missing scope: accounts:read', code: 'MISSING_SCOPE' },
    });
    const err = await trpcError(trpcClient(server, { bearer: made.body.secret }).proxyAccounts.list.query());
    expect(coded(err)).toEqual({
      message: 'Missing scope: accounts:read',
      status: 403,
      kind: 'FORBIDDEN',
      code: 'MISSING_SCOPE',
      params: { scope: 'accounts:read' },
    });
  });

  it('a schema message, a transport refusal and a text no template knows', async () => {
    const empty = await server.client().post('/auth/forgot-password', { email: '' });
    expect(empty.body).toEqual({ success: false, error: 'Email is required', code: 'EMAIL_REQUIRED' });
    const err = await trpcError(trpcClient(server).auth.forgotPassword.mutate({ email: '' }));
    expect(coded(err)).toMatchObject({ message: 'Email is required', status: 400, code: 'EMAIL_REQUIRED' });
    const unknown = await server.client().get('/api/nope');
    expect(unknown.body).toEqual({ success: false, error: 'Not found: GET /api/nope', code: 'ROUTE_NOT_FOUND' });
    const signedOut = await trpcError(trpcClient(server).auth.me.query());
    expect(coded(signedOut)).toMatchObject({ status: 401, code: 'NOT_AUTHENTICATED' });
    // A message made from the field's name: the code of its shape, the name as a param.
    const wrongType = await trpcError(trpcClient(server).auth.forgotPassword.mutate({ email: 5 as unknown as string }));
    expect(coded(wrongType)).toMatchObject({ message: 'Email must be text', status: 400, code: 'FIELD_MUST_BE_TEXT', params: { field: 'Email' } });
    // zod's own message for input that is not an object at all: no template, the generic code of a 400.
    const notAnObject = await trpcError(trpcClient(server).auth.login.mutate(null as never));
    expect(coded(notAnObject)).toMatchObject({ status: 400, code: 'BAD_REQUEST', params: null });
  });
});
