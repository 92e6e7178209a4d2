/**
 * The app at 390x844 (a phone): one header row with a Menu button that opens the links; no page
 * wider than the screen on Dashboard, Proxies, Billing, Settings and the admin Users tab; tables
 * keep their column names beside each value; generated lines scroll inside their box; the admin
 * tab strip says it scrolls; snippets and secrets stay inside the screen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, mintCodes, VIEWPORTS, adminLogIn, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;

beforeAll(async () => {
  e2e = await startE2E();
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Phone User');
  // Something in the billing history, so its table has a row to show as a card.
  const code = (await mintCodes(e2e, 1))[0]!;
  await page.evaluate(
    async (c) => fetch('/auth/redeem-code', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: c }) }),
    code,
  );
  await page.setViewportSize(VIEWPORTS.phone);
});
afterAll(async () => {
  await e2e?.close();
});

/** How far the page reaches past the screen's right edge (0: nothing to scroll sideways). */
const pageOverflow = (p: Page = page) => p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The column name each cell of a table's rows carries (shown beside the value when rows are cards). */
const cellLabels = (p: Page, testId: string) =>
  p
    .getByTestId(testId)
    .locator('tbody tr')
    .first()
    .locator('td')
    .evaluateAll((cells) => cells.map((c) => c.getAttribute('data-label')));

/** Opens a page from the menu: the links are hidden until Menu is pressed, and taking one closes it. */
async function openFromMenu(name: string, heading = name) {
  const menu = page.getByRole('button', { name: 'Menu' });
  expect(await menu.getAttribute('aria-expanded')).toBe('false');
  expect(await page.getByRole('link', { name, exact: true }).isVisible()).toBe(false);
  await menu.click();
  await page.getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
}

describe('at 390x844', () => {
  it('Dashboard: one header row, a Menu that opens the links, the GB note, nothing wider than the screen', async () => {
    await page.goto('/dashboard');
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    // One row: the brand and the Menu button (the two-row nav took about a quarter of the screen).
    expect((await page.locator('.sidebar-column').boundingBox())!.height).toBeLessThan(70);
    expect(await pageOverflow()).toBeLessThanOrEqual(0);
    expect(await page.getByTestId('gb-note').innerText()).toContain('GB = 1,073,741,824 bytes');
    expect(await page.getByTestId('remaining-data').getAttribute('title')).toBe('1,073,741,824 bytes');
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    for (const label of ['Dashboard', 'Proxies', 'Settings', 'Top Up', 'Billing'])
      expect(await page.getByRole('link', { name: label, exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Logout' }).isVisible()).toBe(true);
    await screenshots(page, 'phone-menu');
    await page.setViewportSize(VIEWPORTS.phone);
    await menu.click();
    expect(await page.getByRole('link', { name: 'Proxies', exact: true }).isVisible()).toBe(false);
  });

  it('Proxies: the generated lines scroll inside their box, the snippet too', async () => {
    await openFromMenu('Proxies');
    await page.getByRole('button', { name: 'Generate Proxies' }).click();
    const box = page.getByTestId('proxy-output');
    await box.locator('.proxy-line').first().waitFor();
    const widths = await box.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, right: el.getBoundingClientRect().right }));
    const line = await box
      .locator('.proxy-line')
      .first()
      .evaluate((el) => el.scrollWidth);
    // A line is longer than the phone is wide: the box scrolls sideways to its end instead of cutting it.
    expect(line).toBeGreaterThan(widths.client);
    expect(widths.scroll).toBeGreaterThanOrEqual(line);
    expect(widths.right).toBeLessThanOrEqual(390);
    expect(await page.getByTestId('snippet').evaluate((el) => el.getBoundingClientRect().right)).toBeLessThanOrEqual(390);
    expect(await pageOverflow()).toBeLessThanOrEqual(0);
    await screenshots(page, 'phone-proxies');
    await page.setViewportSize(VIEWPORTS.phone);
  });

  it('Billing: rows are cards naming their columns; Settings: every section fits, secrets masked', async () => {
    await openFromMenu('Billing');
    await page.getByTestId('billing-row').first().waitFor();
    expect(await cellLabels(page, 'billing-table')).toEqual(['Date', 'Type', 'Description', 'Status', 'Amount', 'Receipt']);
    const shown = await page
      .getByTestId('billing-table')
      .locator('tbody td[data-label="Amount"]')
      .first()
      .evaluate((el) => getComputedStyle(el, '::before').content);
    expect(shown).toBe('"Amount"');
    expect(await page.getByTestId('gb-note').isVisible()).toBe(true);
    expect(await pageOverflow()).toBeLessThanOrEqual(0);

    await openFromMenu('Settings');
    for (const section of ['API & proxy', 'Security', 'Notifications', 'Account']) {
      await page.getByRole('tab', { name: section }).click();
      await expect.poll(() => page.getByRole('tab', { name: section }).getAttribute('aria-selected')).toBe('true');
      expect({ section, overflow: await pageOverflow() }).toEqual({ section, overflow: 0 });
    }
    await page.getByRole('tab', { name: 'API & proxy' }).click();
    expect(await page.getByTestId('api-key').getAttribute('type')).toBe('password');
    await screenshots(page, 'phone-settings');
  });

  it('admin Users tab: the tab strip shows it scrolls, users are cards with labels, nothing wider than the screen', async () => {
    const admin = await e2e.newPage();
    await admin.setViewportSize(VIEWPORTS.phone);
    await adminLogIn(admin, ADMIN);
    const strip = admin.locator('.tabs-wrap').filter({ has: admin.getByRole('tablist', { name: 'Admin sections' }) });
    await expect.poll(() => strip.getAttribute('data-more')).toBe('right');
    expect(await admin.getByRole('button', { name: 'Scroll tabs right' }).isVisible()).toBe(true);
    await admin.getByRole('tab', { name: /^Users/ }).click();
    await admin.getByTestId('users-table').locator('tbody td[data-label]').first().waitFor();
    const labels = await cellLabels(admin, 'users-table');
    expect(labels.length).toBeGreaterThan(2);
    expect(labels.filter((l) => l !== null).length).toBeGreaterThan(2);
    expect(await pageOverflow(admin)).toBeLessThanOrEqual(0);
    await admin.getByRole('button', { name: 'Scroll tabs right' }).click();
    await expect.poll(() => strip.getAttribute('data-more')).toMatch(/left|both/);
    await admin.close();
  });
});
