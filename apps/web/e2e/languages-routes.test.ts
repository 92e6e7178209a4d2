/**
 * Every route in every language (issue 51 item 5), signed out and signed in: read in English first,
 * then in each other language at 1280x800 and 390x844: nothing wider than the window, no raw
 * catalogue key, no English sentence left in the main content (route-sweep.ts has the allow-list).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALES, type Locale } from '@proxyhub/core/i18n';
import { addCredits } from '@proxyhub/testing';
import type { Cookie } from 'playwright-core';
import { gatewayTraffic, signUpAndLogIn, startE2E, type E2E, type SessionUser } from './harness';
import { checkScreen, showAccountIn, useLocale } from './route-sweep';

const NAME = 'Zed Quixote';
/** The test's own data, which stays as it is in every language. */
// The name and the main proxy account's stored name ("Main", shown as the account's data).
const KEPT = new Set<string>(['zed', 'quixote', 'main']);

const PUBLIC = [
  '/',
  '/login',
  '/login?mode=register',
  '/forgot-password',
  '/reset-password',
  '/verify-email',
  '/pricing',
  '/locations',
  '/status',
  '/statements',
  '/terms',
];
const SIGNED_IN = [
  '/dashboard',
  '/proxies',
  '/proxy-accounts',
  '/connections',
  '/topup',
  '/billing',
  '/api',
  '/api?section=security',
  '/api?section=notifications',
  '/api?section=account',
  '/api?section=team',
  '/api?section=audit',
];

let e2e: E2E;
let user: SessionUser;
/** The user's session, signed in once and shared by every language's browser. */
let session: Cookie[];
/** Per route: the English texts of its main content. */
const english = new Map<string, Set<string>>();

beforeAll(async () => {
  e2e = await startE2E();
  const first = await e2e.newPage();
  await signUpAndLogIn(e2e, first, NAME);
  session = await first.context().cookies();
  user = await first.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: SessionUser }).user);
  // The user's proxy id (random letters) is data too.
  KEPT.add(user.proxyUserId.toLowerCase());
  await first.context().close();
  await addCredits(e2e.server, user.id, 3n << 30n);
  await gatewayTraffic(e2e, user, 40_000, 'US');
});
afterAll(() => e2e?.close());

async function sweep(locale: Locale, signedIn: boolean): Promise<string[]> {
  const ctx = await e2e.newContext({ locale: locale === 'en' ? 'en-US' : locale });
  const page = await ctx.newPage();
  if (signedIn) {
    await ctx.addCookies(session);
    await page.goto('/');
    await showAccountIn(page, e2e.baseUrl, locale);
  } else await useLocale(page, e2e.baseUrl, locale);
  const problems: string[] = [];
  for (const path of signedIn ? SIGNED_IN : PUBLIC) {
    await page.goto(path);
    await checkScreen(page, locale, path, english, KEPT, problems);
  }
  await ctx.close();
  return problems;
}

describe('every route in every language', () => {
  for (const locale of LOCALES) {
    it(`${locale}: signed-out routes`, async () => {
      expect(await sweep(locale, false)).toEqual([]);
    });
    it(`${locale}: signed-in routes`, async () => {
      expect(await sweep(locale, true)).toEqual([]);
    });
  }
});
