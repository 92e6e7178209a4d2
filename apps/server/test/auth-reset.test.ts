import { createHash } from 'node:crypto';
import type { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkToken, signedInUser, STRONG_PASSWORD, startTestServer, uniqueEmail, type TestServer } from './helpers';
import { expireTokens, rawRequest, sessionRows, tokenRows, trpcFor, userRow } from './auth-support';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const NEW_PASSWORD = 'Changed456';
const COMPLEXITY = 'Password must contain at least one lowercase letter, one uppercase letter, and one number';

async function requestReset(email: string) {
  const res = await server.client().post('/auth/forgot-password', { email });
  expect(res.status).toBe(200);
  await server.settle();
  // Mail goes out after the response, so a verification mail from the registration just before
  // can land in the same millisecond: pick the newest reset mail, not the newest mail.
  const mail = server
    .mails(email)
    .filter((m) => m.subject === 'Reset your password')
    .at(-1);
  expect(mail).toBeDefined();
  return linkToken(mail!);
}

describe('forgot password', () => {
  it('answers the same for an existing and an unknown email, and mails only the existing one', async () => {
    const { email } = await signedInUser(server);
    const unknown = uniqueEmail('ghost');
    const a = await server.client().post('/auth/forgot-password', { email });
    const b = await server.client().post('/auth/forgot-password', { email: unknown });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body).toEqual(b.body);
    expect(a.body).toMatchObject({ success: true, message: expect.any(String) });
    await server.settle();
    expect(server.mails(unknown)).toHaveLength(0);
    expect(server.mails(email).at(-1)!.subject).toBe('Reset your password');
  });

  it('validates the email with the spec messages', async () => {
    expect((await server.client().post('/auth/forgot-password', { email: '' })).body).toEqual({
      success: false,
      error: 'Email is required',
      code: 'EMAIL_REQUIRED',
    });
    expect((await server.client().post('/auth/forgot-password', { email: 'x@y' })).body).toEqual({
      success: false,
      error: 'Please enter a valid email address',
      code: 'EMAIL_INVALID',
    });
  });

  it('builds the link from PUBLIC_URL, stores only its hash, valid for 1 hour', async () => {
    const { email, user } = await signedInUser(server);
    const res = await rawRequest(server, {
      method: 'POST',
      path: '/auth/forgot-password',
      headers: { host: 'attacker.example', 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    expect(res.status).toBe(200);
    await server.settle();
    const mail = server.mails(email).at(-1)!;
    expect(mail.text).toContain(`${server.config.publicUrl}/reset-password?token=`);
    expect(mail.text + mail.html).not.toContain('attacker.example');
    const token = linkToken(mail);
    const row = (await tokenRows(server, user.id)).find((t) => t.purpose === 'password_reset')!;
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(Math.abs(row.expiresAt.getTime() - row.createdAt.getTime() - 3600_000)).toBeLessThan(60_000);
  });
});

describe('reset password', () => {
  it('sets the new password, ends every session, mails a notice; the link works once', async () => {
    const { client: browserA, email, user } = await signedInUser(server);
    const browserB = server.client();
    expect((await browserB.post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(200);
    expect(await sessionRows(server, user.id)).toHaveLength(2);

    const token = await requestReset(email);
    const res = await server.client().post('/auth/reset-password', { token, password: NEW_PASSWORD });
    expect(res).toMatchObject({ status: 200, body: { success: true, message: expect.any(String) } });

    expect(await sessionRows(server, user.id)).toHaveLength(0);
    expect((await browserA.get('/auth/user')).status).toBe(401);
    expect((await browserB.get('/auth/user')).status).toBe(401);

    await server.settle();
    const notice = server.mails(email).at(-1)!;
    expect(notice.subject).toBe('Your password was changed');
    expect(notice.text).toContain(`${server.config.publicUrl}/login`);

    expect((await server.client().post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(401);
    expect((await server.client().post('/auth/login', { email, password: NEW_PASSWORD })).status).toBe(200);
    const [row] = await userRow(server, email);
    expect(row!.passwordHash).toMatch(/^\$argon2id\$/);

    const reuse = await server.client().post('/auth/reset-password', { token, password: 'Third7890' });
    expect(reuse.status).toBe(400);
    expect(reuse.body).toMatchObject({ success: false, error: expect.stringMatching(/already been used/) });
    expect((await server.client().post('/auth/login', { email, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('refuses an expired link (older than 1 hour) and keeps the old password', async () => {
    const { email, user } = await signedInUser(server);
    const token = await requestReset(email);
    await expireTokens(server, user.id);
    const res = await server.client().post('/auth/reset-password', { token, password: NEW_PASSWORD });
    expect(res).toMatchObject({ status: 400, body: { success: false, error: expect.stringMatching(/invalid or has expired/) } });
    expect((await server.client().post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(200);
  });

  it('a newer link replaces the older one', async () => {
    const { email } = await signedInUser(server);
    const older = await requestReset(email);
    const newer = await requestReset(email);
    expect((await server.client().post('/auth/reset-password', { token: older, password: NEW_PASSWORD })).status).toBe(400);
    expect((await server.client().post('/auth/reset-password', { token: newer, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('refuses a weak password with the spec message and does not use up the link', async () => {
    const { email } = await signedInUser(server);
    const token = await requestReset(email);
    const weak = await server.client().post('/auth/reset-password', { token, password: 'weakpassword' });
    expect(weak).toMatchObject({ status: 400, body: { success: false, error: COMPLEXITY } });
    const short = await server.client().post('/auth/reset-password', { token, password: 'Ab1' });
    expect(short.body).toEqual({ success: false, error: 'Password must be at least 8 characters', code: 'PASSWORD_TOO_SHORT' });
    expect((await server.client().post('/auth/reset-password', { token, password: NEW_PASSWORD })).status).toBe(200);
  });

  it.each([
    ['missing', {}],
    ['empty', { token: '' }],
    ['not text', { token: 12345 }],
  ])('a %s token gets the spec message', async (_what, patch) => {
    const res = await server.client().post('/auth/reset-password', { password: NEW_PASSWORD, ...patch });
    expect(res).toMatchObject({ status: 400, body: { success: false, error: 'Invalid reset token. Please request a new password reset.' } });
  });

  it('an unknown token is refused', async () => {
    const res = await server.client().post('/auth/reset-password', { token: 'a'.repeat(43), password: NEW_PASSWORD });
    expect(res).toMatchObject({ status: 400, body: { success: false, error: expect.stringMatching(/invalid or has expired/) } });
  });

  it('two concurrent uses of one link: exactly one wins', async () => {
    const { email } = await signedInUser(server);
    const token = await requestReset(email);
    const results = await Promise.all(
      ['Racer0001A', 'Racer0002B', 'Racer0003C'].map((password) => server.client().post('/auth/reset-password', { token, password })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(2);
  });

  it('resetting also verifies an account that never clicked its verification link', async () => {
    const email = uniqueEmail('unverified');
    await server.client().post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Never Clicked' });
    const token = await requestReset(email);
    expect((await server.client().post('/auth/reset-password', { token, password: NEW_PASSWORD })).status).toBe(200);
    expect((await server.client().post('/auth/login', { email, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('works through tRPC', async () => {
    const { email } = await signedInUser(server);
    const trpc = trpcFor(server, server.client());
    await expect(trpc.auth.forgotPassword.mutate({ email })).resolves.toMatchObject({ message: expect.any(String) });
    await server.settle();
    const token = linkToken(server.mails(email).at(-1)!);
    const weak = (await trpc.auth.resetPassword.mutate({ token, password: 'short' }).catch((e: unknown) => e)) as TRPCClientError<never>;
    expect(weak.message).toBe('Password must be at least 8 characters');
    await expect(trpc.auth.resetPassword.mutate({ token, password: NEW_PASSWORD })).resolves.toMatchObject({ message: expect.any(String) });
    const again = (await trpc.auth.resetPassword.mutate({ token, password: NEW_PASSWORD }).catch((e: unknown) => e)) as TRPCClientError<never>;
    expect(again.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
  });
});

describe('GET /auth/reset-password/check (the reset page, as it opens)', () => {
  const check = (token: string) => server.client().get<{ valid: boolean }>(`/auth/reset-password/check?token=${encodeURIComponent(token)}`);

  it('answers { valid } without spending the link: true for a fresh one, false once used, replaced, expired or unknown', async () => {
    const { email, user } = await signedInUser(server);
    const older = await requestReset(email);
    const token = await requestReset(email);
    expect(await check(token)).toMatchObject({ status: 200, body: { valid: true } });
    expect((await check(token)).body).toEqual({ valid: true });
    expect((await check(older)).body).toEqual({ valid: false });
    expect((await check('not-a-token')).body).toEqual({ valid: false });
    // The checks spent nothing: the link still resets, and is then dead.
    expect((await server.client().post('/auth/reset-password', { token, password: NEW_PASSWORD })).status).toBe(200);
    expect((await check(token)).body).toEqual({ valid: false });
    const expiring = await requestReset(email);
    await expireTokens(server, user.id);
    expect((await check(expiring)).body).toEqual({ valid: false });
  });

  it('a missing token is a 400 with the invalid-token message', async () => {
    const res = await server.client().get('/auth/reset-password/check');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: expect.stringMatching(/^Invalid reset token/) });
  });
});
