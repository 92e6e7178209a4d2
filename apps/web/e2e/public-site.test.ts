/**
 * The shop front a first-time visitor sees: the public pages and their links, Get Started opening
 * Create Account, the status page's bar, a title per route and the skip link, the reset page's
 * check as it opens, and a new verification link from the failed verification page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { INVALID_RESET_LINK } from '@proxyhub/core';
import { uptimeDays } from '@proxyhub/db';
import { gatewayHeartbeat } from '@proxyhub/testing';
import { STRONG_PASSWORD, screenshots, signUpAndLogIn, startE2E, uniqueEmail, type E2E } from './harness';

let e2e: E2E;
beforeAll(async () => {
  // The status answered fresh each time: this file changes the fleet between visits.
  e2e = await startE2E({ statusCacheMs: 0 });
});
afterAll(async () => {
  await e2e?.close();
});

const path = (page: Page) => new URL(page.url()).pathname;

/** The links of one navigation landmark, by name: their targets. */
async function navLinks(page: Page, name: string): Promise<Record<string, string | null>> {
  const nav = page.getByRole('navigation', { name, exact: true });
  await nav.first().waitFor();
  const links = await nav.getByRole('link').all();
  return Object.fromEntries(await Promise.all(links.map(async (l) => [await l.innerText(), await l.getAttribute('href')] as const)));
}

const SITE_HREFS = { Pricing: '/pricing', Locations: '/locations', Status: '/status', 'API Docs': '/docs' };
const LEGAL_HREFS = { Terms: '/terms', Privacy: '/privacy', 'Acceptable Use': '/acceptable-use', Refunds: '/refunds' };

describe('public pages and their links', () => {
  it('the landing page: header and footer links, each claim linked to its evidence, Get Started opens Create Account', async () => {
    const page = await e2e.newPage();
    await page.goto('/');
    await page.getByRole('heading', { name: 'ProxyHub', level: 1 }).waitFor();
    expect(await page.title()).toBe('Residential proxies · ProxyHub');
    expect(await navLinks(page, 'Site')).toEqual(SITE_HREFS);
    expect(await navLinks(page, 'Footer')).toEqual(SITE_HREFS);
    expect(await navLinks(page, 'Legal')).toEqual(LEGAL_HREFS);
    expect(await page.getByRole('link', { name: '10+ countries' }).getAttribute('href')).toBe('/locations');
    expect(await page.getByRole('link', { name: '99.9% uptime' }).getAttribute('href')).toBe('/status');
    expect(await page.locator('body').innerText()).toContain('300+ cryptocurrencies');

    await page.getByRole('link', { name: 'Get Started' }).click();
    await page.getByRole('heading', { name: 'Create Account' }).waitFor();
    expect(path(page)).toBe('/login');
    expect(new URL(page.url()).searchParams.get('mode')).toBe('register');
    await page.getByLabel('Full Name').waitFor();
    expect(await page.title()).toBe('Create Account · ProxyHub');
    // The sign-in screens carry the same links.
    expect(await navLinks(page, 'Site')).toEqual(SITE_HREFS);
    expect(await navLinks(page, 'Legal')).toEqual(LEGAL_HREFS);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Sign In' }).waitFor();
    expect(await page.title()).toBe('Sign In · ProxyHub');

    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'API Docs' }).click();
    await page.waitForURL('**/docs');
  });

  it('/pricing shows the price list in force, tiers when there are some', async () => {
    const page = await e2e.newPage();
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Pricing' }).click();
    await page.getByRole('heading', { name: 'Pricing', level: 1 }).waitFor();
    expect(await page.getByTestId('price-per-gb').innerText()).toBe('$0.90');
    expect(await page.getByTestId('min-order').innerText()).toBe('12 GB for $10.80');
    expect(await page.getByTestId('price-tiers').count()).toBe(0);
    expect(await page.title()).toBe('Pricing · ProxyHub');

    await e2e.internal.admin.setPricing.mutate({ pricePerGbCents: 90, minOrderCents: 1000, tiers: [{ minGb: 100, pricePerGbCents: 80 }] });
    try {
      await page.reload();
      const tiers = page.getByTestId('price-tiers');
      await tiers.waitFor();
      expect(await tiers.innerText()).toMatch(/100 GB\s+\$0\.80/);
      await screenshots(page, 'pricing');
    } finally {
      await e2e.internal.admin.setPricing.mutate({ pricePerGbCents: 90, minOrderCents: 1000, tiers: [] });
    }
  });

  it('/locations lists the countries offered with their states and cities', async () => {
    const page = await e2e.newPage();
    await page.goto('/');
    await page.getByRole('link', { name: '10+ countries' }).click();
    await page.getByRole('heading', { name: 'Locations', level: 1 }).waitFor();
    const api = (await (await page.request.get('/api/locations/countries')).json()) as { countries: Array<{ code: string; states: number; cities: number }> };
    expect(api.countries.length).toBeGreaterThanOrEqual(10);
    const table = page.getByTestId('locations-table');
    await table.waitFor();
    expect(await table.locator('tbody tr').count()).toBe(api.countries.length);
    const us = api.countries.find((c) => c.code === 'US')!;
    expect(us.cities).toBeGreaterThan(us.states);
    expect(await table.locator('tr[data-country="US"]').innerText()).toMatch(
      new RegExp(`United States \\(US\\)\\s+${us.states.toLocaleString('en-US')}\\s+${us.cities.toLocaleString('en-US')}`),
    );
    expect(await page.getByTestId('country-count').innerText()).toBe(`${api.countries.length} countries offered.`);
    expect(await page.title()).toBe('Locations · ProxyHub');
  });

  it('the legal pages show the operator’s text with its title, and link to each other', async () => {
    const page = await e2e.newPage();
    for (const [name, title] of [
      ['Terms', 'Terms of Service'],
      ['Privacy', 'Privacy Policy'],
      ['Acceptable Use', 'Acceptable Use Policy'],
      ['Refunds', 'Refund Policy'],
    ] as const) {
      await page.goto('/login');
      await page.getByRole('navigation', { name: 'Legal' }).getByRole('link', { name }).click();
      await page.getByRole('heading', { name: title, level: 1 }).waitFor();
      await page.locator('article.prose h2').first().waitFor();
      await expect.poll(() => page.title()).toBe(`${title} · ProxyHub`);
    }
    await page.goto('/terms');
    await page.locator('article.prose').getByRole('link', { name: 'Refund Policy' }).click();
    await page.getByRole('heading', { name: 'Refund Policy', level: 1 }).waitFor();
    await screenshots(page, 'refunds');
  });
});

describe('status', () => {
  const beat = (gatewayId: string) => gatewayHeartbeat(e2e.server, gatewayId);

  it('/status: the fleet now and a 90-day bar of daily uptime', async () => {
    const page = await e2e.newPage();
    await page.goto('/status');
    const now = page.getByTestId('status-now');
    await now.waitFor();
    expect(await now.getAttribute('data-status')).toBe('down');
    expect(await now.innerText()).toContain('0 of 0 gateways up');

    await beat('gw-status-1');
    // History no API writes: counting began 10 days ago; 4 days ago the fleet was up half the day.
    const DAY = 86_400_000;
    const todayStart = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    const day = (i: number) => new Date(todayStart - i * DAY);
    await e2e.server.deps.db.insert(uptimeDays).values(
      [10, 9, 8, 7, 6, 5, 4, 3, 2, 1].map((i) => ({
        day: day(i).toISOString().slice(0, 10),
        upMinutes: i === 4 ? 720 : 1440,
        firstMinuteAt: day(i),
        lastMinuteAt: new Date(day(i).getTime() + DAY - 60_000),
      })),
    );
    await page.reload();
    await expect.poll(() => now.getAttribute('data-status')).toBe('operational');
    expect(await now.innerText()).toContain('All systems operational');
    expect(await now.innerText()).toContain('1 of 1 gateway up');
    expect(await page.getByTestId('uptime-30d').innerText()).toMatch(/^\d{1,3}\.\d\d% uptime, last 30 days$/);
    const bar = page.getByTestId('uptime-bar').locator('li');
    expect(await bar.count()).toBe(90);
    expect(await bar.nth(89 - 4).getAttribute('aria-label')).toBe(`${day(4).toISOString().slice(0, 10)}: 50.00% uptime`);
    expect(await bar.nth(89 - 4).getAttribute('class')).toContain('uptime-bad');
    expect(await bar.nth(89 - 2).getAttribute('class')).toContain('uptime-good');
    expect(await bar.nth(0).getAttribute('aria-label')).toMatch(/: no data$/);
    expect(await page.title()).toBe('Status · ProxyHub');
    await screenshots(page, 'status');
  });
});

describe('titles and the skip link', () => {
  it('every signed-in route has its own title; the skip link is the first stop and moves focus to the content', async () => {
    const page = await e2e.newPage();
    await signUpAndLogIn(e2e, page, 'Title Reader');
    await page.getByRole('heading', { name: 'Dashboard' }).first().waitFor();
    await expect.poll(() => page.title()).toBe('Dashboard · ProxyHub');
    for (const [link, title] of [
      ['Proxies', 'Proxies'],
      ['Proxy accounts', 'Proxy Accounts'],
      ['Settings', 'Settings'],
      ['Connections', 'Connections'],
      ['Top Up', 'Top Up'],
      ['Billing', 'Billing'],
    ] as const) {
      await page.getByRole('complementary', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
      await expect.poll(() => page.title()).toBe(`${title} · ProxyHub`);
    }

    await page.goto('/proxies');
    await page.getByRole('heading', { name: 'Generate Proxies' }).waitFor();
    await page.keyboard.press('Tab');
    const focused = () => page.evaluate(() => ({ text: document.activeElement?.textContent ?? '', id: document.activeElement?.id ?? '' }));
    expect((await focused()).text).toBe('Skip to content');
    expect(await page.getByRole('link', { name: 'Skip to content' }).isVisible()).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused()).id).toBe('main');
    // The next Tab goes into the page's form, past the navigation.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('main')?.id ?? document.activeElement?.outerHTML.slice(0, 200))).toBe('main');
  });

  it('signed-out screens too: the skip link first, a title each', async () => {
    const page = await e2e.newPage();
    for (const [to, title] of [
      ['/', 'Residential proxies'],
      ['/login', 'Sign In'],
      ['/forgot-password', 'Forgot Password'],
      ['/verify-email', 'Verify Email'],
      ['/reset-password', 'Reset Password'],
      ['/admin', 'Admin'],
    ] as const) {
      await page.goto(to);
      await expect.poll(() => page.title(), { message: to }).toBe(`${title} · ProxyHub`);
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent), to).toBe('Skip to content');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.evaluate(() => document.activeElement?.id), { message: to }).toBe('main');
    }
  });
});

describe('mail links', () => {
  it('the reset page checks its link as it opens: a used or bogus one is refused before any typing', async () => {
    const page = await e2e.newPage();
    const email = uniqueEmail('reset-check');
    const client = e2e.server.client();
    await client.post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Reset Check' });
    await client.post('/auth/forgot-password', { email });
    const link = await e2e.mailLink(email, '/reset-password');

    await page.goto(link);
    await page.getByRole('heading', { name: 'Reset Password' }).waitFor();
    await page.getByLabel('New Password').waitFor();

    // Used elsewhere (another tab): opening the link again says so at once.
    const token = new URL(link, e2e.baseUrl).searchParams.get('token')!;
    expect((await client.post('/auth/reset-password', { token, password: 'Changed123' })).status).toBe(200);
    for (const url of [link, '/reset-password?token=bogus-token-123']) {
      await page.goto(url);
      await page.getByRole('heading', { name: 'Invalid Reset Link' }).waitFor();
      expect(await page.getByRole('alert').innerText()).toBe(INVALID_RESET_LINK);
      expect(await page.getByLabel('New Password').count()).toBe(0);
    }
    await page.getByRole('link', { name: 'Request a new reset link' }).click();
    await page.waitForURL('**/forgot-password');
  });

  it('a failed verification offers a new link by email, and that link verifies', async () => {
    const page = await e2e.newPage();
    const email = uniqueEmail('resend');
    await e2e.server.client().post('/auth/register', { email, password: STRONG_PASSWORD, name: 'Resend Reader' });
    await e2e.server.settle();
    const first = e2e.server.mails(email).length;

    await page.goto('/verify-email?token=expired-or-bogus');
    await page.getByRole('heading', { name: 'Verification Failed' }).waitFor();
    const form = page.getByRole('form', { name: 'Resend verification' });
    await form.getByRole('button', { name: 'Resend verification' }).click();
    await expect.poll(() => form.locator('.field-error').allInnerTexts()).toEqual(['Email is required']);
    await form.getByLabel('Email').fill(email);
    await form.getByRole('button', { name: 'Resend verification' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /new link has been sent/i })
      .waitFor();
    await screenshots(page, 'verify-email-resend');
    await expect
      .poll(async () => {
        await e2e.server.settle();
        return e2e.server.mails(email).length;
      })
      .toBe(first + 1);

    await page.goto(await e2e.mailLink(email, '/verify-email'));
    await page.getByRole('heading', { name: 'Email Verified!' }).waitFor();
  });
});
