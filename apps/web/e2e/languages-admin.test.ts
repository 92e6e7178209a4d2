/**
 * The admin panel in every language (issue 51 item 5): the overview and every tab, read in English
 * first, then in each other language at 1280x800 and 390x844 (route-sweep.ts has the rules).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALES, type Locale } from '@proxyhub/core/i18n';
import type { Cookie } from 'playwright-core';
import { adminLogIn, startE2E, type E2E } from './harness';
import { checkScreen, useLocale } from './route-sweep';

const KEPT = new Set(['admin']);
let e2e: E2E;
const english = new Map<string, Set<string>>();

/** The admin's session, signed in once and shared by every language's browser. */
let session: Cookie[];

beforeAll(async () => {
  e2e = await startE2E();
  const first = await e2e.newPage();
  await adminLogIn(first);
  session = await first.context().cookies();
  await first.context().close();
});
afterAll(() => e2e?.close());

async function sweep(locale: Locale): Promise<string[]> {
  const ctx = await e2e.newContext({ locale: locale === 'en' ? 'en-US' : locale });
  const page = await ctx.newPage();
  await ctx.addCookies(session);
  await useLocale(page, e2e.baseUrl, locale);
  await page.goto('/admin');
  const problems: string[] = [];
  await checkScreen(page, locale, 'overview', english, KEPT, problems);
  const tabs = page.getByRole('tablist').first().getByRole('tab');
  const count = await tabs.count();
  for (let i = 0; i < count; i++) {
    const id = (await tabs.nth(i).getAttribute('id')) ?? String(i);
    await tabs.nth(i).click();
    await checkScreen(page, locale, id, english, KEPT, problems);
  }
  await ctx.close();
  return problems;
}

describe('the admin panel in every language', () => {
  for (const locale of LOCALES) {
    it(locale, async () => {
      expect(await sweep(locale)).toEqual([]);
    });
  }
});
