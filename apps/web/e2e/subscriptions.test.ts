/**
 * Subscribing to a plan from Top Up in the sandbox, the dashboard's plan bytes, Cancel renewal on
 * Billing; the renewal notice on the dashboard with its Pay button and mail; the admin's views of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { planPeriodsTick } from '@proxyhub/api';
import { subscriptions } from '@proxyhub/db';
import { ADMIN, adminLogIn, gatewayTraffic, screenshots, signUpAndLogIn, startE2EWithUser, type E2E, type SessionUser } from './harness';

let e2e: E2E;
let page: Page;
let user: SessionUser;

beforeAll(async () => {
  ({ e2e, page, user } = await startE2EWithUser('Plan Buyer'));
  const admin = e2e.server.client();
  expect((await admin.post('/auth/admin/login', ADMIN)).status).toBe(200);
  expect((await admin.post('/admin/plans', { name: 'Monthly 5', gbPerPeriod: 5, priceCents: 1500, period: 'month' })).status).toBe(201);
  expect((await admin.post('/admin/plans', { name: 'Renewing 4', gbPerPeriod: 4, priceCents: 1200, period: 'month' })).status).toBe(201);
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

  /** On the sandbox's invoice page: pays it and waits for the return to Top Up. */
  const payInSandbox = async (p: Page) => {
    await p.waitForURL('**/sandbox/pay/**');
    await p.getByTestId('sandbox-pay').click();
    await p.waitForURL((u) => u.pathname === '/topup' && u.searchParams.get('payment') === 'finished');
  };
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  it('a period ending within 7 days: the dashboard shows the renewal notice with Pay to the mailed invoice; the admin sees the subscriber, the bucket and the revenue', async () => {
    const renewer = await e2e.newPage();
    const { email } = await signUpAndLogIn(e2e, renewer, 'Plan Renewer');
    await renewer.goto('/topup');
    await renewer.getByRole('button', { name: 'Subscribe to Renewing 4' }).click();
    await payInSandbox(renewer);
    await renewer.goto('/dashboard');
    await renewer.getByTestId('remaining-data').waitFor();
    expect(await renewer.getByTestId('renewal-notice').count()).toBe(0);

    // The server's clock moved to three days before the period's end; the plan clock runs.
    const me = await renewer.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { id: string } }).user);
    const subOf = async () => (await e2e.server.deps.db.select().from(subscriptions)).find((r) => r.userId === me.id)!;
    const sub = await subOf();
    const periodEnd = sub.periodEnd;
    const clock = new Date(periodEnd.getTime() - 3 * 86_400_000);
    e2e.server.deps.now = () => clock;
    expect((await planPeriodsTick(e2e.server.deps)).notices).toEqual([{ subscriptionId: sub.id, daysBefore: 7 }]);
    await e2e.server.settle();
    const mail = e2e.server.mails(email).find((m) => m.subject.startsWith('Your Renewing 4 plan renews'));
    expect(mail).toBeDefined();
    const link = /https?:\/\/\S+\/sandbox\/pay\/[0-9a-f-]{36}/.exec(mail!.text)![0];

    await renewer.reload();
    const notice = renewer.getByTestId('renewal-notice');
    const shown = await renewer.evaluate((iso) => new Date(iso).toLocaleDateString(), periodEnd.toISOString());
    await expect.poll(() => notice.innerText()).toMatch(new RegExp(`^Your plan Renewing 4 renews on ${escape(shown)}: pay the next period`));
    const pay = renewer.getByRole('link', { name: 'Pay the renewal of Renewing 4' });
    expect(await pay.getAttribute('href')).toBe(link);
    await screenshots(renewer, 'dashboard-renewal-notice');
    await renewer.goto('/topup');
    await expect.poll(() => renewer.getByTestId('renewal-notice').count()).toBe(1);

    // The admin: one subscriber and $12.00 this month on the Plans tab, the user's subscription and bucket, plan revenue in the overview.
    const admin = await e2e.newPage();
    await adminLogIn(admin);
    await expect.poll(() => admin.getByTestId('admin-revenue-split').innerText()).toMatch(/Plans \$27\.00/);
    await admin.getByRole('tab', { name: 'Plans' }).click();
    await expect.poll(() => admin.getByTestId('plans-table').locator('[data-plan="Renewing 4"]').innerText()).toMatch(/Active\s+1\s+\$12\.00/);
    await admin.goto(`/admin?user=${me.id}`);
    await admin.getByTestId('admin-user-detail').waitFor();
    await expect
      .poll(() => admin.getByTestId('admin-user-subscriptions').innerText())
      .toMatch(/Renewing 4\s+Active\s+.+\s+0(\.00)? of 4(\.00)? GB\s+0(\.00)? GB/);
    await expect
      .poll(() => admin.getByTestId('admin-user-buckets').innerText())
      .toMatch(/Renewing 4, period 1\s+4(\.00)? GB\s+0 bytes\s+4(\.00)? GB\s+.+\s+Open/);
    await screenshots(admin, 'admin-user-plans');

    // Paying the renewal from the notice: the next period is paid and the notice goes.
    await renewer.goto('/dashboard');
    await renewer.getByRole('link', { name: 'Pay the renewal of Renewing 4' }).click();
    await payInSandbox(renewer);
    await renewer.goto('/dashboard');
    await renewer.getByTestId('remaining-data').waitFor();
    await expect.poll(() => renewer.getByTestId('renewal-notice').count()).toBe(0);
    expect(await subOf()).toMatchObject({ paidPeriods: 2, period: 1 });
    delete e2e.server.deps.now;
  });
});
