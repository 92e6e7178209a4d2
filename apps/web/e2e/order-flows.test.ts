/**
 * No doubles, no dead ends, as a customer meets them: a double click on Pay makes one order and
 * lands on its invoice; Billing then offers to resume that order (its invoice link) or cancel it,
 * at desktop (1366x800) and phone (390x844) width.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { payments } from '@proxyhub/db';
import { addCredits } from '@proxyhub/testing';
import { adminLogIn, gatewayTraffic, screenshots, startE2EWithUser, type E2E, type SessionUser } from './harness';

let e2e: E2E;
let page: Page;
let user: SessionUser;

beforeAll(async () => ({ e2e, page, user } = await startE2EWithUser('Order Flows')));
afterAll(() => e2e?.close());

const orders = async () => (await e2e.server.deps.db.select().from(payments)).filter((p) => p.userId === user.id);

describe('crypto orders: one per click, resumable, cancellable', () => {
  it('a double click on Pay makes one order; Billing resumes or cancels it at 1366x800 and 390x844', async () => {
    await page.setViewportSize({ width: 1366, height: 800 });
    await page.goto('/topup');
    const pay = page.getByRole('button', { name: /^Pay \$10\.80 with Crypto$/ });
    await pay.dblclick();
    await page.waitForURL(/\/sandbox\/pay\/[0-9a-f-]{36}$/);
    const first = await orders();
    expect(first).toHaveLength(1);
    expect(page.url()).toBe(first[0]!.invoiceUrl);

    // Back without paying: Billing shows the waiting order with its invoice and Cancel.
    await page.goto('/billing');
    const row = page.getByTestId('billing-row').first();
    await expect.poll(() => row.innerText()).toContain('Waiting for payment');
    expect(await row.getByRole('link', { name: 'Resume payment' }).getAttribute('href')).toBe(first[0]!.invoiceUrl);
    await screenshots(page, 'billing-waiting-order');
    await row.getByRole('button', { name: /^Cancel order / }).click();
    await expect.poll(() => row.innerText()).toContain('Cancelled');
    expect(await row.getByRole('link', { name: 'Resume payment' }).count()).toBe(0);
    expect((await orders())[0]!.status).toBe('cancelled');

    // On a phone: a new order, resumed from Billing.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/topup');
    await page.getByRole('button', { name: /^Pay \$10\.80 with Crypto$/ }).click();
    await page.waitForURL(/\/sandbox\/pay\//);
    await page.goto('/billing');
    const latest = page.getByTestId('billing-row').first();
    const resume = latest.getByRole('link', { name: 'Resume payment' });
    await resume.waitFor();
    expect(await resume.isVisible()).toBe(true);
    expect(await latest.getByRole('button', { name: /^Cancel order / }).isVisible()).toBe(true);
    await resume.click();
    await page.waitForURL(/\/sandbox\/pay\//);
    expect(await orders()).toHaveLength(2);
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('numbers that read', () => {
  it('small traffic reads in bytes and KB, and the chart axis has distinct ticks', async () => {
    await addCredits(e2e.server, user.id, 1n << 30n);
    await gatewayTraffic(e2e, user, 600, 'US');
    await gatewayTraffic(e2e, user, 3 * 1024, 'DE');
    await page.setViewportSize({ width: 1366, height: 800 });
    await page.goto('/dashboard');
    await expect.poll(() => page.getByTestId('usage-by-country').innerText(), { timeout: 15_000 }).toContain('US\t600 bytes');
    expect(await page.getByTestId('usage-by-country').innerText()).toContain('DE\t3.00 KB');
    const chart = page.getByTestId('usage-chart');
    await expect.poll(() => chart.getAttribute('data-unit')).toBe('KB');
    // The value axis's ticks are the ones with a unit (the other axis has dates).
    const tickTexts = async () => (await chart.locator('.recharts-cartesian-axis-tick-value').allTextContents()).filter((t) => t.endsWith(' KB'));
    await expect.poll(async () => (await tickTexts()).length, { timeout: 10_000 }).toBeGreaterThan(1);
    const ticks = await tickTexts();
    expect(new Set(ticks).size).toBe(ticks.length);
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('admin panel in a new tab', () => {
  it('opens without signing in again while the admin cookie is valid; after signing out it asks again', async () => {
    const ctx = await e2e.newContext();
    const first = await ctx.newPage();
    await adminLogIn(first);
    // A new tab has its own session storage: only the cookie carries over.
    const second = await ctx.newPage();
    await second.setViewportSize({ width: 1366, height: 800 });
    await second.goto('/admin');
    await second.getByRole('heading', { name: 'Admin Panel' }).waitFor();
    expect(await second.evaluate(() => sessionStorage.getItem('adminLoggedIn'))).toBe('true');
    expect(await second.getByLabel('Username').count()).toBe(0);

    await second.getByRole('button', { name: 'Logout' }).click();
    await second.getByLabel('Username').waitFor();
    const third = await ctx.newPage();
    await third.goto('/admin');
    await third.getByLabel('Username').waitFor();
    expect(await third.getByRole('heading', { name: 'Admin Panel' }).count()).toBe(0);
  });
});
