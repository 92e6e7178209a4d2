/**
 * Ready-to-run code for one generated line: curl, Python (requests), Node (undici's ProxyAgent) and
 * Playwright. Every value is quoted for its language, so any username or password stays one literal.
 * A SOCKS5 line keeps its scheme where the client speaks SOCKS5 with a password (curl, requests); Node's
 * undici and Chromium do not, so those use the same endpoint over HTTP, which it also serves.
 */
import type { ProxyEndpoint } from './proxy-list';

export const SNIPPET_LANGUAGES = [
  { id: 'curl', label: 'curl' },
  { id: 'python', label: 'Python' },
  { id: 'node', label: 'Node' },
  { id: 'playwright', label: 'Playwright' },
] as const;
export type SnippetLanguage = (typeof SNIPPET_LANGUAGES)[number]['id'];

/** The page each snippet fetches: it answers with the exit address. */
export const SNIPPET_TARGET = 'https://api.ipify.org?format=json';

/** A POSIX shell word: single quotes, a quote inside closed, escaped and reopened. */
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** A JavaScript or Python string literal (JSON's escaping is valid in both). */
const quote = (s: string) => JSON.stringify(s);

/** user:pass@ for a URL: reserved characters percent-encoded so the URL parses back to the same values. */
const userInfo = (user: string, pass: string) => `${encodeURIComponent(user)}:${encodeURIComponent(pass)}@`;

export function proxySnippet(
  language: SnippetLanguage,
  proxy: { username: string; password: string },
  endpoint: ProxyEndpoint,
  scheme: 'http' | 'socks5',
): string {
  const hostPort = `${endpoint.host}:${endpoint.port}`;
  const httpUrl = `http://${userInfo(proxy.username, proxy.password)}${hostPort}`;
  // socks5h: the proxy resolves the target's name (the location is the exit's, so is its DNS).
  const socksUrl = `socks5h://${userInfo(proxy.username, proxy.password)}${hostPort}`;
  switch (language) {
    case 'curl':
      return `curl -x ${shellQuote(scheme === 'socks5' ? socksUrl : httpUrl)} ${shellQuote(SNIPPET_TARGET)}`;
    case 'python':
      return [
        ...(scheme === 'socks5' ? ['# pip install "requests[socks]"'] : []),
        'import requests',
        '',
        `proxy = ${quote(scheme === 'socks5' ? socksUrl : httpUrl)}`,
        `r = requests.get(${quote(SNIPPET_TARGET)}, proxies={"http": proxy, "https": proxy}, timeout=30)`,
        'print(r.text)',
      ].join('\n');
    case 'node':
      return [
        ...(scheme === 'socks5' ? ['// undici speaks to HTTP proxies only: the same endpoint serves HTTP too.'] : []),
        "import { fetch, ProxyAgent } from 'undici';",
        '',
        'const dispatcher = new ProxyAgent({',
        `  uri: ${quote(`http://${hostPort}`)},`,
        `  token: \`Basic \${Buffer.from(${quote(`${proxy.username}:${proxy.password}`)}).toString('base64')}\`,`,
        '});',
        `const res = await fetch(${quote(SNIPPET_TARGET)}, { dispatcher });`,
        'console.log(await res.text());',
      ].join('\n');
    case 'playwright':
      return [
        ...(scheme === 'socks5' ? ['// Chromium cannot send a SOCKS5 password: the same endpoint serves HTTP too.'] : []),
        "import { chromium } from 'playwright';",
        '',
        'const browser = await chromium.launch({',
        `  proxy: { server: ${quote(`http://${hostPort}`)}, username: ${quote(proxy.username)}, password: ${quote(proxy.password)} },`,
        '});',
        'const page = await browser.newPage();',
        `await page.goto(${quote(SNIPPET_TARGET)});`,
        "console.log(await page.textContent('body'));",
        'await browser.close();',
      ].join('\n');
  }
}
