import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailTemplates, type MailDraft, type MailMessage } from '@proxyhub/api';
import { LOCALES, type Locale } from '@proxyhub/core/i18n';
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

  it('keeps both parts of real mails (verification, reset), each link as button and as text', async () => {
    const email = uniqueEmail('parts');
    await server.client().post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Pat Parts' });
    await server.client().post('/auth/forgot-password', { email });
    await server.settle();
    const mails = server.mails(email);
    expect(mails.map((m) => m.subject).sort()).toEqual(['Reset your password', 'Verify your email']);
    for (const m of mails) {
      const url = /https?:\/\/\S+/.exec(m.text)![0];
      expect(m.html).toContain(`href="${url}"`);
      expect(m.html).toContain(`>${url}</a>`);
    }
  });
});

/** Every mail the product sends, with sample figures; the English renderings of today are in fixtures/mails-en.json. */
const link = 'https://proxyhub.example/x?token=abc_DEF-123';
const unsubscribeUrl = 'https://proxyhub.example/status?unsubscribe=tok';
const seller = { companyName: 'Seller & Co', address: '1 Main St\nTown', supportEmail: 'help@seller.example' };
const GiB = 1024n ** 3n;
function everyMail(locale: Locale): Record<string, MailDraft> {
  const to = { email: 'someone@example.com', locale };
  const m = mailTemplates;
  return {
    verifyEmail: m.verifyEmail(to, link),
    alreadyRegistered: m.alreadyRegistered(to, link),
    codeGuessing: m.codeGuessing(to, link),
    teamInvite: m.teamInvite(to, link, 'Acme & Team', 'developer'),
    resetPassword: m.resetPassword(to, link),
    passwordChanged: m.passwordChanged(to, link),
    passwordChangedInSettings: m.passwordChanged(to, link, true),
    lowBalance: m.lowBalance(to, link, (3n * GiB) / 2n, 2n * GiB),
    outOfData: m.outOfData(to, link),
    usageThreshold: m.usageThreshold(to, link, { percent: 80, meter: 'daily', name: 'shop', usedBytes: (GiB * 8n) / 10n, limitBytes: GiB }),
    proxyAccountExpiring: m.proxyAccountExpiring(to, link, { name: 'shop', expiresAt: new Date('2026-12-01T10:30:00Z') }),
    planRenewing: m.planRenewing(to, link, 'Pro', new Date('2026-12-01T00:00:00Z')),
    accountSuspended: m.accountSuspended(to, link, 'Spam & abuse'),
    statusConfirm: m.statusConfirm(to, link),
    statusIncident: m.statusIncident(to, link, { country: 'DE', kind: 'opened', unsubscribeUrl }),
    statusRecovered: m.statusIncident(to, link, { country: 'DE', kind: 'closed', unsubscribeUrl }),
  };
}
const english = JSON.parse(readFileSync(new URL('./fixtures/mails-en.json', import.meta.url), 'utf8')) as Record<string, MailMessage>;

describe('every mail has both parts', () => {
  it('covers every template', () => {
    const rendered = new Set(Object.keys(everyMail('en')));
    for (const name of Object.keys(mailTemplates)) expect(rendered.has(name), name).toBe(true);
  });
  it.each(Object.keys(everyMail('en')))('%s: HTML with the product name, a button and the link written out; plain text with the link', (name) => {
    const mail = everyMail('en')[name]!.render(seller);
    // The footer names the seller in both parts.
    expect(mail.html).toContain('Seller &#38; Co · 1 Main St, Town · Support: <a href="mailto:help@seller.example"');
    expect(mail.text).toContain('Seller & Co · 1 Main St, Town\nSupport: help@seller.example');
    expect(mail.subject.length).toBeGreaterThan(0);
    expect(mail.html).toMatch(/^<!doctype html>/i);
    expect(mail.html).toContain('ProxyHub');
    // The button: a styled link whose text is an action, not the address.
    expect(mail.html).toMatch(new RegExp(`<a href="${link.replace(/[.?]/g, '\\$&')}" style="display:inline-block[^"]*">[A-Z][a-z ]+</a>`));
    // The same address written out for clients that show no buttons.
    expect(mail.html).toContain(`>${link}</a>`);
    expect(mail.text).toContain(link);
    expect(mail.text).toContain('ProxyHub');
    expect(mail.text).not.toMatch(/<[a-z]/i);
  });
});

describe.each(LOCALES)('every mail in %s', (locale) => {
  const mails = everyMail(locale);
  it.each(Object.keys(mails))('%s: translated, both parts with the link, no raw key', (name) => {
    const mail = mails[name]!.render(seller);
    if (locale === 'en') {
      // English is today's text exactly.
      expect(mail).toEqual(english[name]);
      return;
    }
    expect(mail.subject).not.toBe(english[name]!.subject);
    expect(mail.text).not.toContain(english[name]!.text.split('\n')[0]);
    for (const part of [mail.subject, mail.text, mail.html]) {
      expect(part).not.toMatch(/\{\{|(?<![-\w])(mail|bot):|\b(frame|verifyEmail|teamInvite|meter|role|statusIncident)\.[a-zA-Z]+/);
      expect(part).not.toMatch(/\b(contact support|Or copy this link|residential proxies)\b/);
    }
    expect(mail.html).toContain(`href="${link}"`);
    expect(mail.html).toContain(`>${link}</a>`);
    expect(mail.text).toContain(link);
    // The seller's footer in both parts.
    expect(mail.text).toContain('Seller & Co · 1 Main St, Town');
    expect(mail.html).toContain('href="mailto:help@seller.example"');
  });

  it('figures and dates follow the language', () => {
    const low = mails.lowBalance!.render(seller).text;
    const want = new Intl.NumberFormat(locale, { style: 'unit', unit: 'gigabyte', unitDisplay: 'short', minimumFractionDigits: 2 }).format(1.5);
    expect(low).toContain(want);
    if (locale !== 'en')
      expect(mails.planRenewing!.subject).toContain(
        new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date('2026-12-01T00:00:00Z')),
      );
  });

  it('"contact support" names the support address in both parts', () => {
    const mail = mails.accountSuspended!.render(seller);
    expect(mail.html).toMatch(/<a href="mailto:help@seller\.example"[^>]*>help@seller\.example<\/a>[^<]*<\/p>/);
    expect(mail.text.split('help@seller.example').length).toBeGreaterThan(2);
  });
});
