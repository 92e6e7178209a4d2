/**
 * Every screen in every language (issue 51 item 5): what the sweep reads from a page and the rules it
 * holds each language to. A screen is read in English first; another language must then show none
 * of English's sentences in the main content (an allow-list keeps brand names, units, protocol
 * names, codes and the test's own data), no raw catalogue key anywhere, and nothing wider than the
 * window at 1280x800 and 390x844.
 */
import type { Page } from 'playwright-core';
import { LOCALE_COOKIE, type Locale } from '@proxyhub/core/i18n';
import { CATALOGUES } from '../../../packages/core/src/i18n/catalogues';

export const SWEEP_SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

/** Words any language keeps as they are. */
const KEPT_WORDS = new Set(
  [
    'ProxyHub',
    'Telegram',
    'Google',
    'Authenticator',
    'HTTP',
    'HTTPS',
    'SOCKS5',
    'SOCKS',
    'CONNECT',
    'API',
    'REST',
    'tRPC',
    'OpenAPI',
    'JSON',
    'CSV',
    'PDF',
    'URL',
    'USD',
    'USDT',
    'BTC',
    'ETH',
    'LTC',
    'TRX',
    'TRC20',
    'ERC20',
    'NOWPayments',
    'Sandbox',
    'GB',
    'MB',
    'KB',
    'ms',
    'CIDR',
    'IPv4',
    'IPv6',
    'TOTP',
    '2FA',
    'curl',
    'Python',
    'Node.js',
    'Go',
    'PHP',
    'Scrapy',
    'Puppeteer',
    'Playwright',
    'Selenium',
    'requests',
    'fetch',
    'undici',
    'axios',
    'PostgreSQL',
    'Redis',
    'Webhook',
    'webhook',
    'HMAC',
    'SHA256',
    'ASN',
    'ISP',
    'DNS',
    'TLS',
    'SNI',
    'IP',
    'ID',
  ].map((w) => w.toLowerCase()),
);

/** A word that is data, not prose: an address, a host, a code, an id, a username, a number. */
const DATA_WORD = /^(?:\S*[{[]\S*|\/\S*|\S+@\S+|https?:\/\/\S+|[\w.-]*\d[\w.:/-]*|[\w-]+(?:\.[\w-]+)+|[A-Z0-9_-]{2,}|[\w-]*_[\w-]*|[$€£]\S*)$/;

/** Words each language writes as English does (loanwords, library labels, country names). */
const SAME_IN: Partial<Record<Locale, string[]>> = {
  'pt-BR': [
    'byte',
    'bytes',
    'host',
    'upstream',
    'upstreams',
    'download',
    'upload',
    'status',
    'site',
    'gateways',
    'gateway',
    'webhooks',
    'webhook',
    'total',
    'login',
    'proxy',
    'proxies',
  ],
  es: ['byte', 'bytes', 'host', 'upstream', 'upstreams', 'plan', 'total', 'webhooks', 'webhook', 'proxy', 'proxies', 'gateways'],
};
/** Every two-letter region code (Intl names the ones that are countries). */
const REGIONS = Array.from({ length: 26 * 26 }, (_, i) => String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)));
/** The words a language keeps: its loanwords, and its own country names that read as English's. */
export function keptIn(locale: Locale, extra: ReadonlySet<string>): Set<string> {
  const names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'none' });
  const words = REGIONS.flatMap((r) => (names.of(r) ?? '').toLowerCase().split(/\s+/));
  return new Set([...extra, ...(SAME_IN[locale] ?? []), ...words, 'legend', 'icon']);
}

/** Whether a text still reads as English: a Latin word of three letters or more that is not kept or data. */
export function englishWords(text: string, kept: ReadonlySet<string>): string[] {
  if (DATA_WORD.test(text.trim())) return [];
  return text
    .split(/[\s,;:()[\]{}"'«»“”‘’!?…·|/=+*<>—–]+/)
    .map((w) => w.replace(/^[.-]+|[.-]+$/g, ''))
    .filter((w) => /[A-Za-z]{3,}/.test(w) && !/[^\x00-\x7F]/.test(w))
    .filter((w) => !KEPT_WORDS.has(w.toLowerCase()) && !kept.has(w.toLowerCase()) && !DATA_WORD.test(w));
}

/** The texts a person reads in the main content: text nodes, placeholders, labels and titles. */
export function mainTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const root = document.querySelector('main') ?? document.body;
    const skip = (el: Element | null) => Boolean(el?.closest('[translate="no"], code, pre, kbd, samp, script, style, textarea, [data-operator-content]'));
    const visible = (el: Element) => {
      const box = (el as HTMLElement).getClientRects?.();
      return !box || box.length > 0;
    };
    const out: string[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = n.textContent?.replace(/\s+/g, ' ').trim();
      const el = n.parentElement;
      if (text && el && !skip(el) && visible(el)) out.push(text);
    }
    for (const el of root.querySelectorAll('[placeholder], [aria-label], [title]')) {
      if (skip(el)) continue;
      for (const attr of ['placeholder', 'aria-label', 'title']) {
        const v = el.getAttribute(attr)?.trim();
        if (v) out.push(v);
      }
    }
    return out;
  });
}

/** Every key of the catalogues, as i18next shows a missing one: `group.key`, and `ns:group.key`. */
const KEYS: string[] = (() => {
  const out: string[] = [];
  const walk = (ns: string, tree: object, prefix: string) => {
    for (const [k, v] of Object.entries(tree)) {
      const key = (prefix ? `${prefix}.${k}` : k).replace(/_(zero|one|two|few|many|other)$/, '');
      if (typeof v === 'string') out.push(key, `${ns}:${key}`);
      else walk(ns, v as object, key);
    }
  };
  for (const [ns, tree] of Object.entries(CATALOGUES.en)) walk(ns, tree, '');
  // A bare word ("language") could be the word itself: only keys with a separator count.
  return [...new Set(out.filter((k) => /[.:_]/.test(k)))];
})();

/** Raw catalogue keys anywhere on the page ("dashboard:usage.title", "usage.title"). */
export function rawKeys(page: Page): Promise<string[]> {
  return page.evaluate((keys) => {
    const known = new Set(keys);
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = n.textContent?.trim() ?? '';
      if (known.has(text)) out.push(text);
    }
    return out;
  }, KEYS);
}

export const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/**
 * Whether the page fits its window once it has settled at a new size: charts re-measure their box a
 * moment after a resize (a phone that opens the page at its width never sees the old size).
 */
export const fitsAfterResize = (page: Page) =>
  page
    .waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth, undefined, { timeout: 2_000, polling: 'raf' })
    .then(() => true)
    .catch(() => false);

/** The innermost element reaching past the window's right edge, as "tag.class: text", to say what overflows. */
export const widest = (page: Page) =>
  page.evaluate(() => {
    const past = [...document.body.querySelectorAll('*')].filter((e) => {
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.right <= window.innerWidth + 1 || getComputedStyle(e).visibility === 'hidden') return false;
      // Inside a box that scrolls or clips, it widens that box, not the page.
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return false;
      return true;
    });
    const inner = past.filter((e) => !past.some((o) => o !== e && e.contains(o)));
    const e = inner[0];
    return e
      ? `${e.tagName.toLowerCase()}${e.className ? `.${String(e.className).split(' ').join('.')}` : ''}: ${(e.textContent ?? '').trim().slice(0, 40)}`
      : 'none';
  });

/** Waits until the screen has its data: the network quiet and no spinner left. */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => !document.querySelector('.spinner, .skeleton'), undefined, { timeout: 15_000 }).catch(() => undefined);
}

/** Shows the app in `locale` from the next page load (the visitor's choice cookie). */
export async function useLocale(page: Page, baseUrl: string, locale: Locale): Promise<void> {
  await page.context().addCookies([{ name: LOCALE_COOKIE, value: locale, url: baseUrl }]);
}

/**
 * Shows a signed-in user's screens in `locale` from the next page load: their own language (set on
 * the account, PATCH /api/account) wins over the browser's cookie, so both are set.
 */
export async function showAccountIn(page: Page, baseUrl: string, locale: Locale): Promise<void> {
  await useLocale(page, baseUrl, locale);
  const status = await page.evaluate(
    async (l) =>
      (await fetch('/api/account', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ locale: l }) })).status,
    locale,
  );
  if (status !== 200) throw new Error(`PATCH /api/account answered ${status}`);
}

/**
 * Reads the screen on show at both sizes: in English it keeps the texts under `key`; in another
 * language it adds to `problems` each English sentence left, raw key and overflow.
 */
export async function checkScreen(
  page: Page,
  locale: Locale,
  key: string,
  english: Map<string, Set<string>>,
  kept: ReadonlySet<string>,
  problems: string[],
): Promise<void> {
  await settle(page);
  const lang = await page.evaluate(() => document.documentElement.lang);
  if (lang !== locale) problems.push(`${locale} ${key}: <html lang="${lang}">`);
  for (const k of await rawKeys(page)) problems.push(`${locale} ${key}: raw key ${k}`);
  const texts = await mainTexts(page);
  if (locale === 'en') english.set(key, new Set(texts));
  else {
    const en = english.get(key) ?? new Set<string>();
    const keep = keptIn(locale, kept);
    for (const text of new Set(texts)) if (en.has(text) && englishWords(text, keep).length) problems.push(`${locale} ${key}: English left: "${text}"`);
  }
  for (const size of SWEEP_SIZES) {
    await page.setViewportSize(size);
    const wide = `${locale} ${key}: wider than ${size.width}px`;
    if (!(await fitsAfterResize(page))) problems.push(`${wide} (${await widest(page)})`);
  }
  await page.setViewportSize(SWEEP_SIZES[0]);
}
