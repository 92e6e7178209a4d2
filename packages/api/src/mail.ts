import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { escapeHtml } from '@proxyhub/core';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export interface MailLogger {
  info(obj: object, msg: string): void;
}

/** SMTP when configured; otherwise one JSON file per message in DATA_DIR/mail (the local outbox). */
export function createMailer(opts: { smtpUrl?: string | undefined; from: string; outboxDir: string; logger: MailLogger }): Mailer {
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      async send(m) {
        await transport.sendMail({ from: opts.from, to: m.to, subject: m.subject, text: m.text, html: m.html });
      },
    };
  }
  let sequence = 0;
  return {
    async send(m) {
      await mkdir(opts.outboxDir, { recursive: true });
      const createdAt = new Date().toISOString();
      // Names sort in the order the messages were written, also within one millisecond.
      sequence += 1;
      const file = join(opts.outboxDir, `${createdAt.replace(/[:.]/g, '-')}-${String(sequence).padStart(9, '0')}-${randomBytes(4).toString('hex')}.json`);
      // Written aside and renamed into place: whoever reads the outbox (another process, a test)
      // never sees a half-written message.
      await writeFile(`${file}.part`, JSON.stringify({ to: m.to, subject: m.subject, text: m.text, html: m.html, createdAt }, null, 2));
      await rename(`${file}.part`, file);
      const link = /https?:\/\/\S+/.exec(m.text)?.[0];
      opts.logger.info({ to: m.to, subject: m.subject, link, file }, 'mail written to outbox');
    },
  };
}

function linkMail(to: string, subject: string, intro: string, link: string, outro: string): MailMessage {
  return {
    to,
    subject,
    text: `${intro}\n\n${link}\n\n${outro}\n`,
    html: `<p>${escapeHtml(intro)}</p><p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p><p>${escapeHtml(outro)}</p>`,
  };
}

export const mailTemplates = {
  /** Goes to an address nobody has proved yet: nothing in it is the registrant's text (not even the name). */
  verifyEmail: (to: string, link: string) =>
    linkMail(
      to,
      'Verify your email',
      'Confirm your email address to start using ProxyHub:',
      link,
      'This link expires in 24 hours. If you did not sign up, ignore this email.',
    ),
  alreadyRegistered: (to: string, link: string) =>
    linkMail(
      to,
      'Sign-in attempt',
      'Someone tried to create a ProxyHub account with this email, which already has one. You can sign in here:',
      link,
      'If this was not you, you can ignore this email.',
    ),
  codeGuessing: (to: string, link: string) =>
    linkMail(
      to,
      'Someone entered your password but not your code',
      'Someone signed in to your ProxyHub account with your password, then entered 20 wrong two-factor codes. ' +
        'Your second factor kept them out, and sign-in with codes is paused for 15 minutes. Your password is known to them: change it now here:',
      link,
      'If it was you, nothing else is needed. Otherwise also replace your API key and proxy password in Settings.',
    ),
  resetPassword: (to: string, link: string) =>
    linkMail(
      to,
      'Reset your password',
      'We received a request to reset your ProxyHub password. Choose a new one here:',
      link,
      'This link expires in 1 hour and can be used once. If you did not ask for it, ignore this email.',
    ),
  /** `inSettings`: changed by a signed-in user, whose own session stayed (a reset signs out everywhere). */
  passwordChanged: (to: string, link: string, inSettings = false) =>
    linkMail(
      to,
      'Your password was changed',
      inSettings
        ? 'The password of your ProxyHub account was just changed in Settings and your other sessions were signed out. Sign in here:'
        : 'The password of your ProxyHub account was just changed and all sessions were signed out. Sign in here:',
      link,
      'If you did not do this, reset your password at once and contact support. ' +
        'Your API key and proxy password did not change: if they may have leaked, replace them in Settings ' +
        '(Rotate API Key, Rotate Proxy Password), or call POST /auth/rotate-api-key and POST /auth/rotate-proxy-password. ' +
        'The old API key stops working at once, the old proxy password within 10 seconds.',
    ),
  lowBalance: (to: string, remainingGb: string, thresholdGb: string): MailMessage => {
    const text = `Your ProxyHub Remaining Data is ${remainingGb} GB, below your alert threshold of ${thresholdGb} GB. Top up to keep your proxies running.`;
    return { to, subject: `Low balance: ${remainingGb} GB left`, text: `${text}\n`, html: `<p>${escapeHtml(text)}</p>` };
  },
  /** The Abuse tab's "Suspend with reason": the operator's reason, word for word. */
  accountSuspended: (to: string, reason: string): MailMessage => {
    const text = 'Your ProxyHub account has been suspended: sign-in, the API and your proxies are stopped.';
    const after = 'If you think this is a mistake, reply to this email or contact support.';
    return {
      to,
      subject: 'Your ProxyHub account is suspended',
      text: `${text}\n\nReason: ${reason}\n\n${after}\n`,
      html: `<p>${escapeHtml(text)}</p><p>Reason: ${escapeHtml(reason)}</p><p>${escapeHtml(after)}</p>`,
    };
  },
  outOfData: (to: string): MailMessage => {
    const text = 'Your ProxyHub Remaining Data reached 0 GB: your proxies stop until you top up.';
    return { to, subject: 'Out of data', text: `${text}\n`, html: `<p>${escapeHtml(text)}</p>` };
  },
};
