/** Subscribing to a plan from Top Up in the sandbox, the dashboard's plan bytes, and Cancel renewal on Billing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, gatewayTraffic, screenshots, startE2EWithUser, type E2E, type SessionUser } from './harness';

let e2e: E2E;
let page: Page;
let user: SessionUser;

beforeAll(async () => {
  ({ e2e, page, user } = await startE2EWithUser('Plan Buyer'));
  const admin = e2e.server.client();
  expect((await admin.post('/auth/admin/login', ADMIN)).status).toBe(200);
  expect((await admin.post('/admin/plans', { name: 'Monthly 5', gbPerPeriod: 5, priceCents: 1500, period: 'month' })).status).toBe(201);
});
afterAll(async () => {
  await e2e?.close();
});

describe('subscriptions', () => {
  it('Subscribe pays the invoice in the sandbox; the dashboard shows the plan bytes with their end; Billing cancels renewal', async () => {
    await page.goto('/topup');
    await page.getByRole('button', { name: 'Subscribe to Monthly 5' }).click();
    await page.waitForURL('**/sandbox/pay/**');
    expect(await page.locator('body').innerText()).toMatch(/5 GB[\s\S]*\$15\.00/);
    await page.getByTestId('sandbox-pay').click();
    await page.waitForURL((u) => u.pathname === '/topup' && u.searchParams.get('payment') === 'finished');

    await gatewayTraffic(e2e, user, 1024 * 1024 * 1024);
    await page.goto('/dashboard');
    await expect.poll(() => page.getByTestId('remaining-data').innerText()).toBe('4.00 GB');
    await expect.poll(() => page.getByTestId('plan-bytes').innerText()).toMatch(/^Plan: 4(\.00)? GB until .+ · Pay as you go: 0(\.00)? GB$/);
    await screenshots(page, 'dashboard-plan-bytes');

    await page.goto('/billing');
    // The order is listed as the plan's payment; its bytes are the grant's entry, not pay-as-you-go.
    await expect.poll(() => page.getByTestId('billing-table').innerText()).toContain('Plan payment: 5 GB period for $15.00');
    const row = page.getByTestId('subscription-row');
    await expect.poll(() => row.innerText()).toMatch(/Monthly 5\s+Active\s+.+\s+1(\.00)? of 5(\.00)? GB\s+0(\.00)? GB/);
    await row.getByRole('button', { name: 'Cancel renewal of Monthly 5' }).click();
    await expect.poll(() => row.innerText()).toMatch(/Renewal cancelled/);
    expect(await row.getByRole('button').count()).toBe(0);
    await screenshots(page, 'billing-subscriptions');
  });
});
