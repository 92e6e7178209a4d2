/**
 * Tokens never reach the logs: verify and reset links, the Google callback's code and state, a
 * tRPC GET's input. The server logs at trace level into a captured stream while those URLs are
 * hit with real tokens; the captured text must not hold any of them, only the development mail
 * line may show the link it exists to show.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl, scrubSecrets } from '../src/logger';
import { rawRequest, startFakeGoogle, type FakeGoogle } from './auth-support';
import { linkToken, STRONG_PASSWORD, startTestServer, uniqueEmail, type TestServer } from './helpers';

const MAIL_LINE = 'mail written to outbox';
const secret = (what: string) => `${what}${randomBytes(12).toString('hex')}`;

/** A pino destination that keeps every line. */
function capture() {
  const lines: string[] = [];
  return { lines, write: (s: string) => void lines.push(s), text: () => lines.join('') };
}

describe('request logs redact tokens', () => {
  let server: TestServer;
  let google: FakeGoogle;
  const log = capture();
  beforeAll(async () => {
    google = await startFakeGoogle();
    server = await startTestServer({
      logDestination: log,
      logLevel: 'trace',
      google: {
        clientId: 'test-client-id',
        clientSecret: 'test-client-secret',
        authorizationEndpoint: google.authorizationEndpoint,
        tokenEndpoint: google.tokenEndpoint,
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await google.close();
  });

  it('verify, reset, Google callback and tRPC GET URLs: the token is nowhere in the output', async () => {
    const email = uniqueEmail('logs');
    const c = server.client();
    expect((await c.post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Log Reader' })).status).toBe(200);
    await server.settle();
    const verifyToken = linkToken(server.mails(email).at(-1)!);
    // The development outbox line shows the link: the one place the token may be printed.
    const printedBy = (token: string) => log.lines.filter((l) => l.includes(token)).map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(printedBy(verifyToken)).toEqual([MAIL_LINE]);
    const before = log.lines.length;

    const guesses = [secret('guess'), secret('guess'), secret('guess')];
    const paths = [
      `/verify-email?token=${verifyToken}`,
      `/verify-email?foo=1&token=${guesses[0]}`,
      `/api/auth/verify-email?token=${guesses[1]}`,
      `/auth/verify-email?%74oken=${guesses[2]}`,
      `/auth/verify-email?token=${verifyToken}`,
      `/trpc/auth.verifyEmail?input=${encodeURIComponent(JSON.stringify({ json: { token: verifyToken } }))}`,
    ];
    for (const path of paths) await rawRequest(server, { method: 'GET', path, headers: { accept: 'text/html' } });

    expect((await c.post('/auth/forgot-password', { email })).status).toBe(200);
    await server.settle();
    const resetToken = linkToken(server.mails(email).at(-1)!);
    await rawRequest(server, { method: 'GET', path: `/reset-password?token=${resetToken}`, headers: { accept: 'text/html' } });
    await rawRequest(server, { method: 'GET', path: `/auth/reset-password?token=${resetToken}`, headers: {} });
    // The reset page's check as it opens.
    await rawRequest(server, { method: 'GET', path: `/auth/reset-password/check?token=${resetToken}`, headers: {} });

    // Google: a callback that signs in, one the provider refuses, one with a state that does not match.
    google.claims = { sub: secret('sub'), email: uniqueEmail('g'), email_verified: true, name: 'G' };
    const codes = [secret('code'), secret('code'), secret('code')];
    const states: string[] = [];
    for (const [i, code] of codes.entries()) {
      const browser = server.client();
      const start = await browser.get('/auth/google');
      const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
      states.push(state);
      google.failWith = i === 1 ? 500 : null;
      await browser.get(`/auth/google/callback?code=${code}&state=${i === 2 ? 'x' : encodeURIComponent(state)}`);
    }
    google.failWith = null;
    await server.settle();

    expect(printedBy(resetToken)).toEqual([MAIL_LINE]);
    const written = log.lines
      .slice(before)
      .filter((l) => (JSON.parse(l) as { msg: string }).msg !== MAIL_LINE)
      .join('');
    expect(written).toContain('[REDACTED]');
    expect(written).toMatch(/"url":"\/verify-email\?token=\[REDACTED\]"/);
    expect(written).toMatch(/"url":"\/auth\/google\/callback\?code=\[REDACTED\]&state=\[REDACTED\]"/);
    // Every one of those requests was logged: the check below is not passing on silence.
    for (const path of [
      '/verify-email',
      '/api/auth/verify-email',
      '/auth/verify-email',
      '/trpc/auth.verifyEmail',
      '/reset-password',
      '/auth/reset-password',
      '/auth/reset-password/check',
      '/auth/google/callback',
    ]) {
      expect(written).toContain(`"url":"${path}?`);
    }
    for (const token of [verifyToken, resetToken, ...guesses, ...codes, ...states]) expect(written).not.toContain(token);
  });
});

describe('redaction helpers', () => {
  it('redactUrl replaces secret parameters by their decoded name and keeps the rest', () => {
    expect(redactUrl('/verify-email?token=abc')).toBe('/verify-email?token=[REDACTED]');
    expect(redactUrl('/x?page=2&TOKEN=abc&%63ode=def&state=&search=ok')).toBe('/x?page=2&TOKEN=[REDACTED]&%63ode=[REDACTED]&state=[REDACTED]&search=ok');
    expect(redactUrl('/admin/users?search=token')).toBe('/admin/users?search=token');
    expect(redactUrl('/health')).toBe('/health');
  });

  it('scrubSecrets catches URLs and form bodies quoted anywhere in a line', () => {
    const line = JSON.stringify({
      msg: 'Route GET:/reset-password?token=abc-123 not found',
      err: { message: 'body grant_type=authorization_code&code=xyz&redirect_uri=http://h/cb' },
    });
    const out = scrubSecrets(line);
    expect(out).not.toMatch(/abc-123|xyz/);
    expect(JSON.parse(out)).toEqual({
      msg: 'Route GET:/reset-password?token=[REDACTED] not found',
      err: { message: 'body grant_type=authorization_code&code=[REDACTED]&redirect_uri=http://h/cb' },
    });
    expect(scrubSecrets('{"msg":"code=7"}')).toBe('{"msg":"code=[REDACTED]"}');
    expect(scrubSecrets('{"msg":"barcode=7 zipcode"}')).toBe('{"msg":"barcode=7 zipcode"}');
  });
});
