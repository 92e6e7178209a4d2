import { createHash } from 'node:crypto';
import { TRPCClientError } from '@trpc/client';
import { eq } from 'drizzle-orm';
import { oneTimeTokens } from '@proxyhub/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkToken, STRONG_PASSWORD, startTestServer, uniqueEmail, type TestServer } from './helpers';
import { expireTokens, tokenRows, trpcFor, userRow } from './auth-support';
import { describeError } from '@proxyhub/core/i18n';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const INVALID_LINK = 'Invalid verification link. Please check your email for the correct link.';

async function registered() {
  const email = uniqueEmail('verify');
  const client = server.client();
  await client.post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Vera Verify' });
  await server.settle();
  const [row] = await userRow(server, email);
  return { email, client, userId: row!.id, token: linkToken(server.mails(email).at(-1)!) };
}

describe('verify email (REST)', () => {
  it('verifies once, then reports alreadyVerified', async () => {
    const { client, token, email } = await registered();
    const first = await client.get(`/auth/verify-email?token=${token}`);
    expect(first).toMatchObject({ status: 200, body: { success: true, alreadyVerified: false } });
    expect((await userRow(server, email))[0]!.emailVerifiedAt).toBeInstanceOf(Date);
    const second = await client.get(`/auth/verify-email?token=${token}`);
    expect(second).toMatchObject({ status: 200, body: { success: true, alreadyVerified: true } });
    // A verified account can sign in.
    expect((await client.post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(200);
  });

  it('stores only the SHA-256 of the token', async () => {
    const { token, userId } = await registered();
    const rows = await tokenRows(server, userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
    // Valid for 24 hours.
    const ttl = rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime();
    expect(Math.abs(ttl - 24 * 3600_000)).toBeLessThan(60_000);
  });

  it('refuses an expired link and leaves the account unverified', async () => {
    const { client, token, userId, email } = await registered();
    await expireTokens(server, userId);
    const res = await client.get(`/auth/verify-email?token=${token}`);
    expect(res).toMatchObject({ status: 400, body: { success: false, error: 'This verification link has expired. Please request a new one.' } });
    expect((await userRow(server, email))[0]!.emailVerifiedAt).toBeNull();
  });

  it('refuses an unknown token', async () => {
    const res = await server.client().get(`/auth/verify-email?token=${'x'.repeat(43)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Invalid or unknown verification link. Please request a new one.', code: 'VERIFY_LINK_UNKNOWN' });
  });

  it.each([
    ['no token', ''],
    ['an empty token', '?token='],
    ['a blank token', '?token=%20%20'],
    ['two tokens', '?token=a&token=b'],
    ['a very long token', `?token=${'a'.repeat(5000)}`],
  ])('answers %s with the spec message', async (_what, qs) => {
    const res = await server.client().get(`/auth/verify-email${qs}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: INVALID_LINK, code: describeError(INVALID_LINK)!.code });
  });

  it('resend sends a new link and the earlier one still works (a newer mail never voids it)', async () => {
    const { client, token: oldToken, email } = await registered();
    const resend = await client.post('/auth/resend-verification', { email: email.toUpperCase() });
    expect(resend).toMatchObject({ status: 200, body: { success: true, message: expect.any(String) } });
    await server.settle();
    const mails = server.mails(email);
    expect(mails).toHaveLength(2);
    const newToken = linkToken(mails[1]!);
    expect(newToken).not.toBe(oldToken);
    expect((await client.get(`/auth/verify-email?token=${oldToken}`)).body).toMatchObject({ success: true, alreadyVerified: false });
    expect((await userRow(server, email))[0]!.emailVerifiedAt).not.toBeNull();
    // The other link now reads as already verified rather than as an error.
    expect((await client.get(`/auth/verify-email?token=${newToken}`)).body).toMatchObject({ success: true, alreadyVerified: true });
  });

  it('a double click on Create Account: two mails, the first link verifies, the second reads as already verified', async () => {
    const email = uniqueEmail('double');
    const body = { email, password: STRONG_PASSWORD, name: 'Dora Double' };
    const answers = await Promise.all([server.client().post('/auth/register', body), server.client().post('/auth/register', body)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    await server.settle();
    const tokens = server.mails(email).map((m) => linkToken(m));
    expect(tokens.length).toBeGreaterThanOrEqual(1);
    const [first, ...rest] = tokens;
    expect((await server.client().get(`/auth/verify-email?token=${first}`)).body).toMatchObject({ success: true, alreadyVerified: false });
    for (const t of rest) expect((await server.client().get(`/auth/verify-email?token=${t}`)).body).toMatchObject({ success: true, alreadyVerified: true });
  });

  it('a link voided before links stayed good says a newer link was sent, never "already used"', async () => {
    const { client, token, userId } = await registered();
    // No API voids a verification link any more: the row is aged as an older server left it.
    await server.deps.db.update(oneTimeTokens).set({ usedAt: new Date() }).where(eq(oneTimeTokens.userId, userId));
    const r = await client.get(`/auth/verify-email?token=${token}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      success: false,
      error: 'A newer verification link was sent to your email. Please use the link in the latest message.',
      code: 'VERIFY_LINK_REPLACED',
    });
  });

  it('resend answers the same for unknown and verified addresses and sends nothing', async () => {
    const unknown = uniqueEmail('nobody');
    const { client, token, email } = await registered();
    await client.get(`/auth/verify-email?token=${token}`);
    const a = await server.client().post('/auth/resend-verification', { email: unknown });
    const b = await server.client().post('/auth/resend-verification', { email });
    expect(a.status).toBe(200);
    expect(b).toEqual({ ...a, headers: b.headers });
    await server.settle();
    expect(server.mails(unknown)).toHaveLength(0);
    expect(server.mails(email)).toHaveLength(1);
  });

  it('resend validates the email with the spec messages', async () => {
    expect((await server.client().post('/auth/resend-verification', {})).body).toEqual({ success: false, error: 'Email is required', code: 'EMAIL_REQUIRED' });
    expect((await server.client().post('/auth/resend-verification', { email: 'nope' })).body).toEqual({
      success: false,
      error: 'Please enter a valid email address',
      code: 'EMAIL_INVALID',
    });
  });

  it('a verification token is not a reset token', async () => {
    const { client, token } = await registered();
    const res = await client.post('/auth/reset-password', { token, password: 'Another123' });
    expect(res.status).toBe(400);
  });
});

describe('verify email (tRPC)', () => {
  it('verifies, then alreadyVerified, and maps errors', async () => {
    const { client, token } = await registered();
    const trpc = trpcFor(server, client);
    await expect(trpc.auth.verifyEmail.mutate({ token })).resolves.toMatchObject({ alreadyVerified: false });
    await expect(trpc.auth.verifyEmail.mutate({ token })).resolves.toMatchObject({ alreadyVerified: true });
    const err = (await trpc.auth.verifyEmail.mutate({ token: '' }).catch((e: unknown) => e)) as TRPCClientError<never>;
    expect(err).toBeInstanceOf(TRPCClientError);
    expect(err.message).toBe(INVALID_LINK);
    const unknown = (await trpc.auth.verifyEmail.mutate({ token: 'nope' }).catch((e: unknown) => e)) as TRPCClientError<never>;
    expect(unknown.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
  });

  it('one token verified by many concurrent clicks succeeds once and answers alreadyVerified to the rest', async () => {
    const { token } = await registered();
    const results = await Promise.all(Array.from({ length: 5 }, () => server.client().get(`/auth/verify-email?token=${token}`)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => r.body.alreadyVerified === false)).toHaveLength(1);
  });
});
