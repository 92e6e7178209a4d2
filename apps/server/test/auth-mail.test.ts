import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRONG_PASSWORD, startTestServer, uniqueEmail, type TestServer } from './helpers';
import { startSmtpSink } from './auth-support';

/** Undoes quoted-printable soft breaks and escapes, enough to read links in a message body. */
function unQuotedPrintable(s: string): string {
  return s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe('mail over SMTP', () => {
  let sink: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: TestServer;
  beforeAll(async () => {
    sink = await startSmtpSink();
    server = await startTestServer({ smtpUrl: sink.url });
  });
  afterAll(async () => {
    await server.close();
    await sink.close();
  });

  it('delivers the verification mail of a registration to the SMTP server', async () => {
    const email = uniqueEmail('smtp');
    const delivered = sink.next();
    const res = await server.client().post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Sam Smtp' });
    expect(res.status).toBe(200);
    const msg = await delivered;
    expect(msg.to).toEqual([email]);
    expect(msg.from).toBe('no-reply@proxyhub.local');
    const data = unQuotedPrintable(msg.data);
    expect(data).toMatch(/^Subject: Verify your email$/m);
    expect(data).toMatch(new RegExp(`^To: ${email.replace(/[.+]/g, '\\$&')}$`, 'm'));
    expect(data).toContain(`${server.config.publicUrl}/verify-email?token=`);
    expect(data).toMatch(/Content-Type: text\/html/i);

    // The link in the SMTP message works.
    const token = /verify-email\?token=([A-Za-z0-9_-]+)/.exec(data)![1]!;
    expect((await server.client().get(`/auth/verify-email?token=${token}`)).body).toMatchObject({ success: true, alreadyVerified: false });
    // Nothing went to the file outbox.
    let files: string[] = [];
    try {
      files = readdirSync(join(server.dataDir, 'mail'));
    } catch {
      // no outbox directory at all
    }
    expect(files).toHaveLength(0);
  });

  it('a failing SMTP server does not fail the request (mail is background work, logged)', async () => {
    const down = await startTestServer({ smtpUrl: 'smtp://127.0.0.1:1' });
    try {
      const res = await down.client().post('/auth/register', { email: uniqueEmail('smtpdown'), password: STRONG_PASSWORD, name: 'No Mail' });
      expect(res.status).toBe(200);
      await down.settle();
    } finally {
      await down.close();
    }
  });
});

describe('mail to the file outbox', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('writes one JSON file per message with to, subject, text, html, createdAt', async () => {
    const email = uniqueEmail('outbox');
    await server.client().post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Olive <b>Outbox</b>' });
    await server.settle();
    const [mail] = server.mails(email);
    expect(Object.keys(mail!).sort()).toEqual(['createdAt', 'html', 'subject', 'text', 'to']);
    expect(Number.isNaN(Date.parse(mail!.createdAt))).toBe(false);
    // The registrant's name is in neither part (the address has not been proved to be theirs).
    expect(mail!.html).not.toContain('Olive');
    expect(mail!.text).not.toContain('Olive');
    expect(mail!.html).not.toContain('<b>');
  });
});
