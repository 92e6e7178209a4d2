// A new customer's first hour, as the issue walked it: a new account at 0 GB, a top-up through the
// sandbox payment page (which looks like the app), traffic, and a dashboard whose Remaining and
// Total Usage add up to what was bought; the phone layout without a band under the header; and
// screenshots of the screens no other test keeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, INTERNAL_KEY, VIEWPORTS, gatewayTraffic, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;
let email: string;
let user: { proxyUserId: string; proxyPassword: string };

beforeAll(async () => {
  e2e = await startE2E();
  page = await e2e.newPage();
  ({ email } = await signUpAndLogIn(e2e, page, 'First Hour'));
  user = await page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { proxyUserId: string; proxyPassword: string } }).user);
});
afterAll(async () => {
  await e2e?.close();
});

/** How wide the page is laid out: wider than the window means sideways scrolling. */
const pageWidth = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth);

/** The computed look of the page's body and its first primary button. */
const look = (p: Page, button: string) =>
  p.evaluate((selector) => {
    const body = getComputedStyle(document.body);
    const b = document.querySelector(selector);
    const btn = b ? getComputedStyle(b) : null;
    return { font: body.fontFamily, bodyColor: body.color, button: btn && { background: btn.backgroundColor, radius: btn.borderRadius, font: btn.fontFamily } };
  }, button);

describe('the first hour', () => {
  it('a new account starts at 0 GB', async () => {
    expect(await page.getByTestId('remaining-data').innerText()).toBe('0.00 GB');
    expect(await page.getByTestId('total-usage').innerText()).toBe('0.00 GB');
    expect(await page.getByTestId('total-bought').innerText()).toBe('0.00 GB');
    await screenshots(page, 'dashboard-new');
  });

  it('tops up through the sandbox payment page, which wears the app look', async () => {
    await page.getByRole('link', { name: 'Top Up', exact: true }).click();
    await page.getByRole('button', { name: 'Pay $10.80 with Crypto' }).waitFor();
    const appLook = await look(page, 'button.btn-primary');
    await page.getByLabel('Amount (GB)').fill('20');
    await page.getByRole('button', { name: 'Pay $18.00 with Crypto' }).click();
    await page.waitForURL('**/sandbox/pay/**');
    const orderPage = page.url();
    await page.getByRole('heading', { name: 'Sandbox payment' }).waitFor();
    // The app's stylesheet, font and primary button; the order in the app's price table.
    expect(await look(page, '[data-testid="sandbox-pay"]')).toEqual(appLook);
    expect(appLook.button?.background).toBe('rgb(79, 70, 229)');
    expect(await page.locator('.price-table').innerText()).toMatch(/Amount\s+20 GB\s+Total\s+\$18\.00/);
    expect(await page.getByTestId('sandbox-pay').innerText()).toBe('Pay $18.00');
    await screenshots(page, 'sandbox-pay');
    await page.getByTestId('sandbox-pay').click();
    await page.waitForURL((u) => u.pathname === '/topup' && u.searchParams.get('payment') === 'finished');
    await expect.poll(() => page.getByTestId('balance').innerText()).toBe('20.00 GB');
    // The paid order's page says so, in the same look.
    await page.goto(orderPage);
    await page.getByText('This order is already finished.').waitFor();
    await screenshots(page, 'sandbox-paid');
    await page.goto('/sandbox/pay/00000000-0000-4000-8000-000000000000');
    await page.getByRole('heading', { name: 'Unknown payment' }).waitFor();
    expect((await look(page, '.btn')).font).toBe(appLook.font);
  });

  it('Remaining + Total Usage add up to what was bought (19.76 + 0.24 = 20.00, not 19.75 + 0.24)', async () => {
    // 263,000,000 bytes = 0.2449 GB used of 20 GB: 19.7551 GB remain.
    await gatewayTraffic(e2e, user, 263_000_000);
    await page.goto('/dashboard');
    await expect.poll(() => page.getByTestId('total-usage').innerText()).toBe('0.24 GB');
    const shown = {
      remaining: await page.getByTestId('remaining-data').innerText(),
      usage: await page.getByTestId('total-usage').innerText(),
      bought: await page.getByTestId('total-bought').innerText(),
    };
    expect(shown).toEqual({ remaining: '19.76 GB', usage: '0.24 GB', bought: '20.00 GB' });
    const hundredths = (s: string) => Math.round(parseFloat(s) * 100);
    expect(hundredths(shown.remaining) + hundredths(shown.usage)).toBe(hundredths(shown.bought));
    await screenshots(page, 'dashboard-after-usage');
    // The same figures everywhere: the other pages' balance and the admin's REST list.
    await page.getByRole('link', { name: 'Proxies', exact: true }).click();
    expect(await page.getByTestId('credits').innerText()).toContain('19.76 GB');
    const listed = await fetch(`${e2e.server.url}/admin/users`, { headers: { authorization: `Bearer ${INTERNAL_KEY}` } });
    const row = ((await listed.json()) as { users: Array<{ email: string; creditsGB: number; totalUsageGB: number }> }).users.find((u) => u.email === email);
    expect(row).toMatchObject({ creditsGB: 19.76, totalUsageGB: 0.24 });
  });

  it('the phone layout has no empty band under the header, on short pages too', async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    for (const path of ['/dashboard', '/proxies', '/proxy-accounts', '/api', '/topup', '/billing']) {
      await page.goto(path);
      await page.locator('main.app-main h1').first().waitFor();
      const gap = await page.evaluate(() => {
        const column = document.querySelector('.sidebar-column')!;
        const header = column.getBoundingClientRect();
        const main = document.querySelector('.app-main')!.getBoundingClientRect();
        const nav = document.querySelector('.sidebar')!.getBoundingClientRect();
        const border = parseFloat(getComputedStyle(column).borderBottomWidth);
        return { headerToMain: main.top - header.bottom, headerHeight: header.height, headerPadding: header.height - border - nav.height };
      });
      // The header is as tall as its content, and the page starts right under it.
      expect({ path, ...gap }).toMatchObject({ path, headerToMain: 0, headerPadding: 0 });
      expect(gap.headerHeight).toBeLessThan(200);
      await expect.poll(() => pageWidth(page)).toBe(VIEWPORTS.phone.width);
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it('keeps screenshots of the screens no other test shows: receipt, API reference, admin payments, unknown path', async () => {
    await page.goto('/billing');
    const receipt = page.getByRole('link', { name: /receipt/i }).first();
    await receipt.waitFor();
    const href = await receipt.getAttribute('href');
    await page.goto(href!);
    await page.getByText('$18.00').first().waitFor();
    await screenshots(page, 'receipt');
    await page.goto('/docs');
    await page.locator('.swagger-ui').first().waitFor();
    await page.getByText('ProxyHub', { exact: false }).first().waitFor();
    await screenshots(page, 'api-docs');
    // Any other path goes home, which for a signed-in user is the dashboard.
    await page.goto('/no-such-page');
    await page.waitForURL('**/dashboard');
    await screenshots(page, 'not-found-signed-in');

    const admin = await e2e.newPage();
    await admin.goto('/admin');
    await admin.getByLabel('Username').fill(ADMIN.username);
    await admin.getByLabel('Password').fill(ADMIN.password);
    await admin.getByRole('button', { name: 'Sign In' }).click();
    await admin.getByRole('heading', { name: 'Admin Panel' }).waitFor();
    await admin.getByRole('tab', { name: 'Payments', exact: true }).click();
    await expect.poll(() => admin.getByTestId('payments-table').innerText()).toContain('$18.00 · 20 GB');
    // Statuses in words, money as money: "Paid", and "$15" on the revenue axis (never "finished" or "15 $"; SVG text has no innerText).
    expect(await admin.getByTestId('payments-table').innerText()).toContain('Paid');
    expect(await admin.getByTestId('payments-table').innerText()).not.toContain('finished');
    const ticks = () => admin.getByTestId('admin-revenue-chart').locator('.recharts-cartesian-axis-tick-value').allTextContents();
    await expect.poll(async () => (await ticks()).filter((t) => /^\$\d[\d,]*$/.test(t)).length).toBeGreaterThan(1);
    expect((await ticks()).filter((t) => t.includes('$') && !/^\$\d[\d,]*$/.test(t))).toEqual([]);
    await screenshots(admin, 'admin-payments');
    // Six tabs on a phone: the tab row scrolls, the page keeps the window's width.
    await admin.setViewportSize(VIEWPORTS.phone);
    await expect.poll(() => pageWidth(admin)).toBe(VIEWPORTS.phone.width);
    await admin.getByRole('tab', { name: 'Audit log', exact: true }).click();
    await admin.getByTestId('audit-table').waitFor();
    await admin.close();

    const anonymous = await e2e.newPage();
    await anonymous.goto('/no-such-page');
    await anonymous.waitForURL((u) => u.pathname === '/');
    await screenshots(anonymous, 'not-found');
    await anonymous.close();
  });
});
