import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { escapeHtml, formatGb, type Seller, type TeamRole, type UsageMeterKind } from '@proxyhub/core';
import { DEFAULT_LOCALE, formatDate, formatGbFor, formatNumber, isLocale, type Locale } from '@proxyhub/core/i18n';
import { lookUpFor, translatorFor } from '@proxyhub/core/i18n/server';
import { incidentWords } from './services/status/quality-incidents';

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

/** Who a mail goes to: the address and the language it is written in (the account's; anything else is English). */
export interface Recipient {
  email: string;
  locale: string | null | undefined;
}

/** One mail's words: what happened, the one thing to do (a button and its link), and what else to know. */
interface MailContent {
  subject: string;
  intro: string;
  action: { label: string; url: string };
  outro?: string;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Stands for the support address while the words around it are escaped for HTML.
const ADDRESS_MARK = '\u0001';

/**
 * A mail with both parts: a plain-text part (intro, link, outro, signature) and an HTML part with
 * the product name, a button and the same link written out (a bare link looks like phishing and
 * some clients do not show buttons). Inline styles and one table: what mail clients render. The
 * footer names the seller; "contact support" (in the mail's language) names its support address
 * (a mailto link in HTML).
 */
export function composeMail(to: Recipient, c: MailContent): MailDraft {
  return { to: to.email, subject: c.subject, render: (seller) => renderMail(to, c, seller) };
}

function renderMail(to: Recipient, c: MailContent, seller: MailSeller): MailMessage {
  const t = translatorFor(to.locale);
  const contactSupport = new RegExp(escapeRegExp(t('frame.contactSupport', { ns: 'mail' })), 'g');
  const url = escapeHtml(c.action.url);
  const email = escapeHtml(seller.supportEmail);
  const mailto = `<a href="mailto:${email}" style="color:#4f46e5">${email}</a>`;
  const contactHtml = escapeHtml(t('frame.contactSupportAt', { ns: 'mail', address: ADDRESS_MARK })).replace(ADDRESS_MARK, mailto);
  const p = (text: string) =>
    `<p style="margin:0 0 16px;font-size:15px;line-height:1.5;color:#1f2937">${text
      .split(contactSupport)
      .map((part) => escapeHtml(part))
      .join(contactHtml)}</p>`;
  const sellerLine = `${seller.companyName} · ${seller.address.replace(/\n/g, ', ')}`;
  const html = [
    `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>`,
    '<body style="margin:0;padding:24px;background:#f3f4f6;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif">',
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px">',
    `<tr><td style="padding:20px 28px;border-bottom:1px solid #e5e7eb;font-size:20px;font-weight:700;color:#4f46e5">${PRODUCT_NAME}</td></tr>`,
    '<tr><td style="padding:28px">',
    p(c.intro),
    `<p style="margin:24px 0"><a href="${url}" style="display:inline-block;padding:12px 22px;background:#4f46e5;color:#ffffff;border-radius:6px;text-decoration:none;font-weight:600">${escapeHtml(c.action.label)}</a></p>`,
    `<p style="margin:0 0 16px;font-size:13px;color:#6b7280">${escapeHtml(t('frame.copyLink', { ns: 'mail' }))}<br><a href="${url}" style="color:#4f46e5;word-break:break-all">${url}</a></p>`,
    c.outro ? p(c.outro) : '',
    '</td></tr>',
    `<tr><td style="padding:16px 28px;border-top:1px solid #e5e7eb;font-size:12px;color:#6b7280">${PRODUCT_NAME} · ${escapeHtml(t('frame.tagline', { ns: 'mail' }))}<br>` +
      `<span data-seller="footer">${escapeHtml(sellerLine)} · ${escapeHtml(t('frame.support', { ns: 'mail', address: ADDRESS_MARK })).replace(ADDRESS_MARK, mailto)}</span></td></tr>`,
    '</table></body></html>',
  ].join('');
  const named = (text: string) => text.replace(contactSupport, t('frame.contactSupportAt', { ns: 'mail', address: seller.supportEmail }));
  const signature = `-- \n${PRODUCT_NAME}\n${sellerLine}\n${t('frame.support', { ns: 'mail', address: seller.supportEmail })}`;
  const text = [named(c.intro), t('frame.actionLine', { ns: 'mail', label: c.action.label, url: c.action.url }), c.outro && named(c.outro), signature]
    .filter(Boolean)
    .join('\n\n');
  return { to: to.email, subject: c.subject, text: `${text}\n`, html };
}

/** A mail whose four parts are one catalogue group's subject, intro, action and outro. */
type PlainMail =
  | 'verifyEmail'
  | 'alreadyRegistered'
  | 'codeGuessing'
  | 'teamInvite'
  | 'resetPassword'
  | 'lowBalance'
  | 'usageThresholdPlan'
  | 'outOfData'
  | 'usageThreshold'
  | 'proxyAccountExpiring'
  | 'planRenewing'
  | 'accountSuspended'
  | 'statusConfirm';

function plainMail(to: Recipient, key: PlainMail, link: string, values: Record<string, string> = {}) {
  // The key is one of the groups above; the values are each group's placeholders.
  const t = lookUpFor(to.locale);
  const part = (name: string) => t(`${key}.${name}`, { ns: 'mail', ...values });
  return composeMail(to, { subject: part('subject'), intro: part('intro'), action: { label: part('action'), url: link }, outro: part('outro') });
}

/** The figures of mails and bot messages in the reader's language. */
export const figures = {
  /** Bytes as GB, exact to two decimals ("1.50 GB", "1,50 ГБ"). */
  gb: (locale: string | null | undefined, bytes: bigint) => formatGbFor(localeOf(locale), bytes),
  /** The same figure without its unit, for "1.00 of 2.00 GB". */
  gbNumber: (locale: string | null | undefined, bytes: bigint) =>
    formatNumber(localeOf(locale), Number(formatGb(bytes)), { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  /** A whole number of GB ("10 GB", "10 ГБ"). */
  wholeGb: (locale: string | null | undefined, gb: number) => formatNumber(localeOf(locale), gb, GB_UNIT),
  /** A whole percent ("80%", "80 %"). */
  percent: (locale: string | null | undefined, percent: number) => formatNumber(localeOf(locale), percent / 100, { style: 'percent' }),
  /** A UTC day: English keeps the spec's ISO form (2026-11-28); the others their own long form. */
  day: (locale: string | null | undefined, d: Date) =>
    localeOf(locale) === DEFAULT_LOCALE ? d.toISOString().slice(0, 10) : formatDate(localeOf(locale), d, { dateStyle: 'long', timeZone: 'UTC' }),
  /** A UTC minute: English keeps the spec's form (2026-11-28 07:00); the others their own. */
  minute: (locale: string | null | undefined, d: Date) =>
    localeOf(locale) === DEFAULT_LOCALE
      ? d.toISOString().slice(0, 16).replace('T', ' ')
      : formatDate(localeOf(locale), d, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }),
};

const GB_UNIT = { style: 'unit', unit: 'gigabyte', unitDisplay: 'short' } as const;
const localeOf = (locale: string | null | undefined): Locale => (isLocale(locale) ? locale : DEFAULT_LOCALE);

export const mailTemplates = {
  /** Goes to an address nobody has proved yet: nothing in it is the registrant's text (not even the name). */
  verifyEmail: (to: Recipient, link: string) => plainMail(to, 'verifyEmail', link),
  alreadyRegistered: (to: Recipient, link: string) => plainMail(to, 'alreadyRegistered', link),
  codeGuessing: (to: Recipient, link: string) => plainMail(to, 'codeGuessing', link),
  /** The inviter's name is the account holder's own text, escaped by the renderer like every field. */
  teamInvite: (to: Recipient, link: string, accountName: string, role: TeamRole) =>
    plainMail(to, 'teamInvite', link, { account: accountName, role: translatorFor(to.locale)(`role.${role}`, { ns: 'mail' }) }),
  resetPassword: (to: Recipient, link: string) => plainMail(to, 'resetPassword', link),
  /** `inSettings`: changed by a signed-in user, whose own session stayed (a reset signs out everywhere). */
  passwordChanged: (to: Recipient, link: string, inSettings = false) => {
    const t = translatorFor(to.locale);
    return composeMail(to, {
      subject: t('passwordChanged.subject', { ns: 'mail' }),
      intro: inSettings ? t('passwordChanged.introInSettings', { ns: 'mail' }) : t('passwordChanged.intro', { ns: 'mail' }),
      action: { label: t('passwordChanged.action', { ns: 'mail' }), url: link },
      outro: t('passwordChanged.outro', { ns: 'mail' }),
    });
  },
  lowBalance: (to: Recipient, link: string, remainingBytes: bigint, thresholdBytes: bigint) =>
    plainMail(to, 'lowBalance', link, { remaining: figures.gb(to.locale, remainingBytes), threshold: figures.gb(to.locale, thresholdBytes) }),
  outOfData: (to: Recipient, link: string) => plainMail(to, 'outOfData', link, { zero: figures.wholeGb(to.locale, 0) }),
  /** A usage alert on one of a proxy account's allowances (its cap, daily or monthly limit) or a plan period's. */
  usageThreshold: (to: Recipient, link: string, n: { percent: number; meter: UsageMeterKind; name: string; usedBytes: bigint; limitBytes: bigint }) =>
    plainMail(to, n.meter === 'plan' ? 'usageThresholdPlan' : 'usageThreshold', link, {
      percent: figures.percent(to.locale, n.percent),
      what: meterWords(to.locale, n.meter, n.name),
      used: figures.gb(to.locale, n.usedBytes),
      limit: figures.gb(to.locale, n.limitBytes),
    }),
  /** Three days before a proxy account's expiry. */
  proxyAccountExpiring: (to: Recipient, link: string, n: { name: string; expiresAt: Date }) =>
    plainMail(to, 'proxyAccountExpiring', link, { name: n.name, expiresAt: figures.minute(to.locale, n.expiresAt) }),
  /** Seven days and one day before a plan period ends: the link pays the next period. */
  planRenewing: (to: Recipient, link: string, planName: string, endsOn: Date) =>
    plainMail(to, 'planRenewing', link, { plan: planName, endsOn: figures.day(to.locale, endsOn) }),
  /** The Abuse tab's "Suspend with reason": the operator's reason, word for word. */
  accountSuspended: (to: Recipient, link: string, reason: string) => plainMail(to, 'accountSuspended', link, { reason }),
  /** The status board's double opt-in: the link confirms the subscription. */
  statusConfirm: (to: Recipient, link: string) => plainMail(to, 'statusConfirm', link),
  /** A country on the status board degraded or recovered; the outro carries a fresh unsubscribe link. */
  statusIncident: (to: Recipient, link: string, n: { country: string; kind: 'opened' | 'closed'; unsubscribeUrl: string }) => {
    const t = translatorFor(to.locale);
    return composeMail(to, {
      subject: t(n.kind === 'opened' ? 'statusIncident.subjectOpened' : 'statusIncident.subjectClosed', { ns: 'mail', country: n.country }),
      intro: incidentWords(to.locale, n),
      action: { label: t('statusIncident.action', { ns: 'mail' }), url: link },
      outro: t('statusIncident.outro', { ns: 'mail', url: n.unsubscribeUrl }),
    });
  },
};

/** Which allowance a usage alert is about, in the reader's language ("the daily limit of proxy account \"shop\""). */
export const meterWords = (locale: string | null | undefined, meter: UsageMeterKind, name: string) =>
  translatorFor(locale)(`meter.${meter}`, { ns: 'mail', name });
