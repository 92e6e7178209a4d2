import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { escapeHtml, type Seller } from '@proxyhub/core';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** A transport: SMTP or the local outbox. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** What a mail says of the seller: its footer and the address "contact support" names. */
export type MailSeller = Pick<Seller, 'companyName' | 'address' | 'supportEmail'>;

/** A mail written before the seller is known: sending fills in the seller's current settings. */
export interface MailDraft {
  to: string;
  subject: string;
  render(seller: MailSeller): MailMessage;
}

/** What services send mail through. */
export interface DraftMailer {
  send(draft: MailDraft): Promise<void>;
}

/** Reads the seller as each mail goes out, so a change in the Site tab shows in the next mail. */
export function sellerSignedMailer(transport: Mailer, seller: () => Promise<MailSeller>): DraftMailer {
  return { send: async (draft) => transport.send(draft.render(await seller())) };
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

/** The name every mail carries in its header and signature. */
export const PRODUCT_NAME = 'ProxyHub';

/** One mail's words: what happened, the one thing to do (a button and its link), and what else to know. */
interface MailContent {
  subject: string;
  intro: string;
  action: { label: string; url: string };
  outro?: string;
}

const CONTACT_SUPPORT = /contact support/g;

/**
 * A mail with both parts: a plain-text part (intro, link, outro, signature) and an HTML part with
 * the product name, a button and the same link written out (a bare link looks like phishing and
 * some clients do not show buttons). Inline styles and one table: what mail clients render. The
 * footer names the seller; "contact support" names its support address (a mailto link in HTML).
 */
export function composeMail(to: string, c: MailContent): MailDraft {
  return { to, subject: c.subject, render: (seller) => renderMail(to, c, seller) };
}

function renderMail(to: string, c: MailContent, seller: MailSeller): MailMessage {
  const url = escapeHtml(c.action.url);
  const email = escapeHtml(seller.supportEmail);
  const mailto = `<a href="mailto:${email}" style="color:#4f46e5">${email}</a>`;
  const p = (t: string) =>
    `<p style="margin:0 0 16px;font-size:15px;line-height:1.5;color:#1f2937">${escapeHtml(t).replace(CONTACT_SUPPORT, `contact support at ${mailto}`)}</p>`;
  const sellerLine = `${seller.companyName} · ${seller.address.replace(/\n/g, ', ')}`;
  const html = [
    '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>',
    '<body style="margin:0;padding:24px;background:#f3f4f6;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif">',
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px">',
    `<tr><td style="padding:20px 28px;border-bottom:1px solid #e5e7eb;font-size:20px;font-weight:700;color:#4f46e5">${PRODUCT_NAME}</td></tr>`,
    '<tr><td style="padding:28px">',
    p(c.intro),
    `<p style="margin:24px 0"><a href="${url}" style="display:inline-block;padding:12px 22px;background:#4f46e5;color:#ffffff;border-radius:6px;text-decoration:none;font-weight:600">${escapeHtml(c.action.label)}</a></p>`,
    `<p style="margin:0 0 16px;font-size:13px;color:#6b7280">Or copy this link into your browser:<br><a href="${url}" style="color:#4f46e5;word-break:break-all">${url}</a></p>`,
    c.outro ? p(c.outro) : '',
    '</td></tr>',
    `<tr><td style="padding:16px 28px;border-top:1px solid #e5e7eb;font-size:12px;color:#6b7280">${PRODUCT_NAME} · residential proxies<br>` +
      `<span data-seller="footer">${escapeHtml(sellerLine)} · Support: ${mailto}</span></td></tr>`,
    '</table></body></html>',
  ].join('');
  const named = (t: string) => t.replace(CONTACT_SUPPORT, `contact support at ${seller.supportEmail}`);
  const signature = `-- \n${PRODUCT_NAME}\n${sellerLine}\nSupport: ${seller.supportEmail}`;
  const text = [named(c.intro), `${c.action.label}: ${c.action.url}`, c.outro && named(c.outro), signature].filter(Boolean).join('\n\n');
  return { to, subject: c.subject, text: `${text}\n`, html };
}

export const mailTemplates = {
  /** Goes to an address nobody has proved yet: nothing in it is the registrant's text (not even the name). */
  verifyEmail: (to: string, link: string) =>
    composeMail(to, {
      subject: 'Verify your email',
      intro: `Confirm your email address to start using ${PRODUCT_NAME}.`,
      action: { label: 'Verify email', url: link },
      outro: 'This link expires in 24 hours. If you did not sign up, ignore this email.',
    }),
  alreadyRegistered: (to: string, link: string) =>
    composeMail(to, {
      subject: 'Sign-in attempt',
      intro: `Someone tried to create a ${PRODUCT_NAME} account with this email, which already has one. You can sign in instead.`,
      action: { label: 'Sign in', url: link },
      outro: 'If this was not you, you can ignore this email.',
    }),
  codeGuessing: (to: string, link: string) =>
    composeMail(to, {
      subject: 'Someone entered your password but not your code',
      intro:
        `Someone signed in to your ${PRODUCT_NAME} account with your password, then entered 20 wrong two-factor codes. ` +
        'Your second factor kept them out, and sign-in with codes is paused for 15 minutes. Your password is known to them: change it now.',
      action: { label: 'Change your password', url: link },
      outro: 'If it was you, nothing else is needed. Otherwise also replace your API key and proxy password in Settings.',
    }),
  /** The inviter's name is the account holder's own text, escaped by the renderer like every field. */
  teamInvite: (to: string, link: string, accountName: string, role: string) =>
    composeMail(to, {
      subject: `You are invited to a ${PRODUCT_NAME} team`,
      intro: `${accountName} invited you to their ${PRODUCT_NAME} account as ${role}. Sign in or create an account with this email address, then accept.`,
      action: { label: 'Accept the invite', url: link },
      outro: 'This link expires in 7 days and can be used once. If you do not know the sender, ignore this email.',
    }),
  resetPassword: (to: string, link: string) =>
    composeMail(to, {
      subject: 'Reset your password',
      intro: `We received a request to reset your ${PRODUCT_NAME} password. Choose a new one with the button below.`,
      action: { label: 'Reset password', url: link },
      outro: 'This link expires in 1 hour and can be used once. If you did not ask for it, ignore this email.',
    }),
  /** `inSettings`: changed by a signed-in user, whose own session stayed (a reset signs out everywhere). */
  passwordChanged: (to: string, link: string, inSettings = false) =>
    composeMail(to, {
      subject: 'Your password was changed',
      intro: inSettings
        ? `The password of your ${PRODUCT_NAME} account was just changed in Settings and your other sessions were signed out.`
        : `The password of your ${PRODUCT_NAME} account was just changed and all sessions were signed out.`,
      action: { label: 'Sign in', url: link },
      outro:
        'If you did not do this, reset your password at once and contact support. ' +
        'Your API key and proxy password did not change: if they may have leaked, replace them in Settings ' +
        '(Rotate API Key, Rotate Proxy Password), or call POST /auth/rotate-api-key and POST /auth/rotate-proxy-password. ' +
        'The old API key stops working at once, the old proxy password within 10 seconds.',
    }),
  lowBalance: (to: string, link: string, remainingGb: string, thresholdGb: string) =>
    composeMail(to, {
      subject: `Low balance: ${remainingGb} GB left`,
      intro: `Your ${PRODUCT_NAME} Remaining Data is ${remainingGb} GB, below your alert threshold of ${thresholdGb} GB. Top up to keep your proxies running.`,
      action: { label: 'Top up', url: link },
      outro: 'You get this mail because you set a low balance alert in Settings.',
    }),
  outOfData: (to: string, link: string) =>
    composeMail(to, {
      subject: 'Out of data',
      intro: `Your ${PRODUCT_NAME} Remaining Data reached 0 GB: your proxies stop until you top up.`,
      action: { label: 'Top up', url: link },
      outro: 'You get this mail because you set a low balance alert in Settings.',
    }),
  /** A usage alert: `what` names the limit ("the daily limit of proxy account \"shop\""). */
  usageThreshold: (to: string, link: string, n: { percent: number; what: string; usedGb: string; limitGb: string; atFull: string; linkLabel: string }) =>
    composeMail(to, {
      subject: `${n.percent}% used: ${n.what}`,
      intro: `You have used ${n.usedGb} GB of ${n.limitGb} GB (${n.percent}%) of ${n.what}. ${n.atFull}`,
      action: { label: n.linkLabel, url: link },
      outro: 'You get this mail because of the usage alert percents in Settings.',
    }),
  /** Three days before a proxy account's expiry. */
  proxyAccountExpiring: (to: string, link: string, n: { name: string; expiresAt: string }) =>
    composeMail(to, {
      subject: `Proxy account "${n.name}" expires soon`,
      intro: `Your proxy account "${n.name}" expires at ${n.expiresAt} (UTC): from then on it is refused. Set a later expiry to keep it running.`,
      action: { label: 'Proxy accounts', url: link },
      outro: 'You get this mail three days before a proxy account you set to expire does.',
    }),
  /** Seven days and one day before a plan period ends: the link pays the next period. */
  planRenewing: (to: string, link: string, planName: string, endsOn: string) =>
    composeMail(to, {
      subject: `Your ${planName} plan renews on ${endsOn}`,
      intro: `Your ${PRODUCT_NAME} plan ${planName} ends its period on ${endsOn}. Pay the next period before then and it starts right when this one ends; unpaid, the plan lapses and your pay-as-you-go data stays as it is.`,
      action: { label: 'Pay the next period', url: link },
      outro: 'To stop renewing, cancel renewal under Billing. What is left of this period is yours until it ends.',
    }),
  /** The Abuse tab's "Suspend with reason": the operator's reason, word for word. */
  accountSuspended: (to: string, link: string, reason: string) =>
    composeMail(to, {
      subject: `Your ${PRODUCT_NAME} account is suspended`,
      intro: `Your ${PRODUCT_NAME} account has been suspended: sign-in, the API and your proxies are stopped. Reason: ${reason}`,
      action: { label: 'Acceptable use policy', url: link },
      outro: 'If you think this is a mistake, reply to this email or contact support.',
    }),
};
