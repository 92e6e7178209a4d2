/**
 * Browser test harness: the real server (in-process, fresh database) serving the built web app on
 * http://localhost:<port>, and Debian's Chromium driven by playwright-core.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { ApiConfig } from '@proxyhub/api';
import { createServer, type ServerParts } from '@proxyhub/server';
import {
  INTERNAL_KEY,
  STRONG_PASSWORD,
  internalClient,
  linkToken,
  testServerStarter,
  uniqueEmail,
  type TestServer as KitTestServer,
  type TestServerInput,
} from '@proxyhub/testing';

export { INTERNAL_KEY, STRONG_PASSWORD, linkToken, uniqueEmail };

type TestServer = KitTestServer<ServerParts>;
const startTestServer = testServerStarter(createServer);

export const WEB_DIST = fileURLToPath(new URL('../dist', import.meta.url));
export const SCREENSHOT_DIR = fileURLToPath(new URL('../test-results/screenshots', import.meta.url));
export const ADMIN = { username: 'admin', password: 'Admin-Pass-123' };

export const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Debian's Chromium headless shell (package chromium-headless-shell: the same Blink without the
 * browser's own interface, what Playwright runs headless tests in) when installed, else Chromium.
 * The full browser spent about 60 % more CPU on the same tests (window and interface renderers).
 */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((p) => existsSync(p)) ?? '/usr/bin/chromium';

/** A Chromium whose every request goes through SOCKS5 on `port` of 127.0.0.1, with no credentials (it cannot send any). */
export function launchSocksChromium(port: number): Promise<Browser> {
  // Chromium skips proxies for loopback unless told not to (`<-loopback>`): the targets are local.
  return launchChromium([`--proxy-server=socks5://127.0.0.1:${port}`, '--proxy-bypass-list=<-loopback>']);
}

/** `url` loaded in a new context of `browser`: the page's text, or why it did not load. */
export async function loadText(browser: Browser, url: string): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  const ctx = await browser.newContext();
  try {
    const p = await ctx.newPage();
    await p.goto(url, { timeout: 15_000 });
    return { ok: true, text: (await p.locator('body').innerText()).trim() };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  } finally {
    await ctx.close();
  }
}

/** `extraArgs`: more command-line switches (a proxy, for the password-less SOCKS5 test). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

/**
 * One browser per test worker, shared by the files it runs (each file gets its own contexts, so
 * cookies and storage are still its own): a launch costs about a second of CPU. Playwright kills
 * it when the worker exits; a browser that has gone away is launched again.
 */
let workerBrowser: Promise<Browser> | undefined;
async function sharedBrowser(): Promise<Browser> {
  const current = workerBrowser && (await workerBrowser.catch(() => undefined));
  if (current?.isConnected()) return current;
  workerBrowser = launchChromium();
  return workerBrowser;
}

export interface E2E {
  server: TestServer;
  browser: Browser;
  baseUrl: string;
  /** A fresh browser profile (own cookies), clipboard allowed, desktop size; `locale` sets the browser's languages (Accept-Language). */
  newContext(options?: { locale?: string }): Promise<BrowserContext>;
  newPage(): Promise<Page>;
  /** Latest mailed link with a token for this address and path. */
  mailLink(email: string, path: '/verify-email' | '/reset-password'): Promise<string>;
  /** Internal-key tRPC client (what the shop bot uses). */
  internal: ReturnType<typeof internalClient>;
  close(): Promise<void>;
}

/** Top-up codes minted on the spec's REST path with the internal key, as the shop bot mints them. */
export async function mintCodes(e2e: E2E, creditsGB: number, quantity = 1): Promise<string[]> {
  const r = await fetch(`${e2e.server.url}/admin/codes/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_KEY}` },
    body: JSON.stringify({ creditsGB, quantity, expiresAt: null }),
  });
  if (r.status !== 200) throw new Error(`/admin/codes/create answered ${r.status}`);
  return ((await r.json()) as { codes: { code: string }[] }).codes.map((c) => c.code);
}

/** `config`: API settings for this file's server (e.g. a short gateway down interval). */
export async function startE2E(config: Partial<ApiConfig> & Pick<TestServerInput, 'telegram'> = {}): Promise<E2E> {
  // The browser's URL must be the config's publicUrl: mail links and the CSRF Origin check use it.
  // A port found free can be taken by another process before the server listens on it: try another.
  let port = 0;
  let server: TestServer | undefined;
  for (let attempt = 1; !server; attempt++) {
    port = await freePort();
    try {
      server = await startTestServer({ ...config, publicUrl: `http://localhost:${port}`, port, webDistDir: WEB_DIST, admin: ADMIN });
    } catch (err) {
      if (attempt >= 5 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  const baseUrl = `http://localhost:${port}`;
  const browser = await sharedBrowser();
  const contexts: BrowserContext[] = [];
  const newContext = async (options: { locale?: string } = {}) => {
    const ctx = await browser.newContext({ baseURL: baseUrl, viewport: VIEWPORTS.desktop, acceptDownloads: true, ...options });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
    contexts.push(ctx);
    return ctx;
  };
  const internal = internalClient(server);
  return {
    server,
    browser,
    baseUrl,
    newContext,
    async newPage() {
      const ctx = await newContext();
      return ctx.newPage();
    },
    async mailLink(email, path) {
      await server.settle();
      const mail = server
        .mails(email)
        .filter((m) => m.text.includes(path))
        .at(-1);
      if (!mail) throw new Error(`no ${path} mail for ${email}`);
      return `${path}?token=${linkToken(mail)}`;
    },
    internal,
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await server.close();
    },
  };
}

/**
 * Saves the page at desktop and phone width (full page), then restores the desktop size. The
 * pictures are taken in the PGlite run only: the PostgreSQL run shows the same pages and would
 * write the same files again (it still resizes and scrolls, so the test goes on as in the other).
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  const take = !process.env.DATABASE_URL;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    // From the top: a sticky header shot from a scrolled page would sit in the middle of the picture.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    if (take) await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}-${label}.png`, fullPage: true, animations: 'disabled', caret: 'hide' });
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** Registers through the UI's own API path (the outbox link), verifies and signs in in this page. */
export async function signUpAndLogIn(e2e: E2E, page: Page, name = 'Test User'): Promise<{ email: string; password: string }> {
  const email = uniqueEmail('web');
  await page.goto('/login');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await page.getByLabel('Full Name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(STRONG_PASSWORD);
  await page.getByRole('button', { name: 'Create Account' }).click();
  await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
  await page.goto(await e2e.mailLink(email, '/verify-email'));
  await page.getByRole('heading', { name: 'Email Verified!' }).waitFor();
  await logIn(page, email, STRONG_PASSWORD);
  return { email, password: STRONG_PASSWORD };
}

/** The signed-in user's id and proxy credentials, as GET /auth/user answers them. */
export interface SessionUser {
  id: string;
  proxyUserId: string;
  proxyPassword: string;
}

/**
 * A file's stack with one new user signed up and in on a page (signUpAndLogIn), and who that is.
 * The stack is closed again if the user cannot be made.
 */
export async function startE2EWithUser(name: string): Promise<{ e2e: E2E; page: Page; user: SessionUser }> {
  const e2e = await startE2E();
  try {
    const page = await e2e.newPage();
    await signUpAndLogIn(e2e, page, name);
    const user = await page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: SessionUser }).user);
    return { e2e, page, user };
  } catch (err) {
    await e2e.close();
    throw err;
  }
}

/** Signs in at /admin (the bootstrap admin unless another is given) and waits for the panel. */
export async function adminLogIn(page: Page, who: { username: string; password: string } = ADMIN): Promise<void> {
  await page.goto('/admin');
  await page.getByLabel('Username').fill(who.username);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.getByRole('heading', { name: 'Admin Panel' }).waitFor();
}

export async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await page.waitForURL('**/dashboard');
}

/** What a gateway does while an account's traffic runs: a lease for the bytes, then one report of them to a country. */
let reportSeq = 0;
export async function gatewayTraffic(e2e: E2E, credentials: { proxyUserId: string; proxyPassword: string }, bytesDown: number, country = 'US'): Promise<void> {
  const gw = e2e.internal.gateway;
  const { account } = await gw.authorize.mutate({ proxyUserId: credentials.proxyUserId, password: credentials.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  const lease = await gw.reserveLease.mutate({ gatewayId: 'e2e-gw', proxyAccountId: account.proxyAccountId, bytes: bytesDown });
  reportSeq += 1;
  await gw.report.mutate({
    gatewayId: 'e2e-gw',
    seq: reportSeq,
    items: [
      {
        leaseId: lease.leaseId!,
        bytesUp: 0,
        bytesDown,
        sessions: 1,
        release: true,
        parts: [{ protocol: 'socks5', country, state: '', city: '', bytesUp: 0, bytesDown, sessions: 1 }],
      },
    ],
  });
}

/**
 * Holds this page's tRPC calls to `procedure` (e.g. 'credits.createCryptoPayment') until the
 * returned function is called, so a test can see what the page shows while a request runs.
 */
export async function holdCalls(page: Page, procedure: string): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route(
    (url) => url.pathname.startsWith('/trpc/') && url.pathname.includes(procedure),
    async (route) => {
      await held;
      await route.continue();
    },
  );
  return release;
}

/** What the connection records of a user's main account share, as a gateway reports them (nothing billed). */
export async function recordBase(e2e: E2E, user: Pick<SessionUser, 'proxyUserId' | 'proxyPassword'>) {
  const { account } = await e2e.internal.gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  return {
    proxyUserId: user.proxyUserId,
    proxyAccountId: account.proxyAccountId,
    country: 'US',
    state: '',
    city: '',
    session: 'rotating',
    bytesUp: 0,
    bytesDown: 0,
    billedBytes: 0,
    reason: '',
  };
}

/** The text of every visible field error, in order. The signed-out forms show theirs once the shared schemas have loaded (on first focus or submit): poll those. */
export async function fieldErrors(page: Page): Promise<string[]> {
  return page.locator('.field-error').allInnerTexts();
}
