import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, screenshots, signUpAndLogIn, startE2E, STRONG_PASSWORD, type E2E } from './harness';

let e2e: E2E;
let admin: Page;
let customer: { email: string; id: string; proxyUserId: string; proxyPassword: string };

beforeAll(async () => {
  e2e = await startE2E();
  const page = await e2e.newPage();
  const { email } = await signUpAndLogIn(e2e, page, 'Grace Customer');
  const me = await page.evaluate(
    async () => ((await (await fetch('/auth/user')).json()) as { user: { id: string; proxyUserId: string; proxyPassword: string } }).user,
  );
  customer = { email, ...me };
  admin = await e2e.newPage();
  await admin.goto('/admin');
  await admin.getByLabel('Username').fill(ADMIN.username);
  await admin.getByLabel('Password').fill(ADMIN.password);
  await admin.getByRole('button', { name: 'Sign In' }).click();
  await admin.getByRole('heading', { name: 'Admin Panel' }).waitFor();
});
afterAll(async () => {
  await e2e?.close();
});

const cell = () => admin.getByTestId('users-table');

describe('admin: users', () => {
  it('finds a customer, opens them, suspends, unsuspends and corrects the balance with reasons', async () => {
    await admin.getByRole('tab', { name: /Users/ }).click();
    await admin.getByLabel('Search users').fill(customer.proxyUserId.slice(1, 7));
    await expect.poll(() => cell().innerText()).toContain(customer.email);
    await admin.getByLabel('Status').selectOption('suspended');
    await expect.poll(() => cell().innerText()).toContain('No users found.');
    await admin.getByLabel('Status').selectOption('active');
    await admin.getByRole('button', { name: customer.email }).click();
    const detail = admin.getByTestId('admin-user-detail');
    await detail.waitFor();
    expect(admin.url()).toContain(`/admin?user=${customer.id}`);
    expect(await admin.getByTestId('admin-user-status').innerText()).toBe('Active');
    await admin.getByTestId('admin-user-usage-chart').locator('svg.recharts-surface').first().waitFor();

    // Suspend: a reason is required, then the status and the reason show.
    await admin.getByRole('button', { name: 'Suspend user' }).click();
    await admin.getByText('A reason is required').waitFor();
    await admin.getByLabel('Reason', { exact: true }).fill('card testing');
    await admin.getByRole('button', { name: 'Suspend user' }).click();
    await expect.poll(() => admin.getByTestId('admin-user-status').innerText()).toBe('Suspended');
    expect(await admin.getByTestId('admin-user-suspension').innerText()).toContain('card testing');
    const login = await fetch(`${e2e.baseUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: e2e.baseUrl },
      body: JSON.stringify({ email: customer.email, password: STRONG_PASSWORD }),
    });
    expect(login.status).toBe(403);

    await admin.getByRole('button', { name: 'Unsuspend user' }).click();
    await expect.poll(() => admin.getByTestId('admin-user-status').innerText()).toBe('Active');

    // Adjust: validation, then the balance and the billing line.
    await admin.getByRole('button', { name: 'Apply adjustment' }).click();
    await admin.getByText('Amount must be a number of GB').waitFor();
    await admin.getByLabel('Amount (GB)').fill('1.5');
    await admin.getByLabel('Adjustment reason').fill('outage credit');
    await admin.getByRole('button', { name: 'Apply adjustment' }).click();
    await admin.getByText('Adjusted by 1.50 GB.').waitFor();
    await expect.poll(() => admin.getByTestId('admin-user-remaining').innerText()).toBe('1.50 GB');
    expect(await admin.getByTestId('admin-user-billing').innerText()).toContain(`Adjustment: outage credit (admin:${ADMIN.username})`);
    await screenshots(admin, 'admin-user');

    // The audit log has all three, with their reasons.
    const log = await admin.evaluate(
      async (id) => (await (await fetch(`/admin/audit-log?target=user:${id}`)).json()) as { entries: { action: string }[] },
      customer.id,
    );
    expect(log.entries.map((e) => e.action)).toEqual(['admin.adjustUserBalance', 'admin.unsuspendUser', 'admin.suspendUser']);

    await admin.getByRole('button', { name: 'Back to users' }).click();
    await cell().waitFor();
    expect(admin.url()).toMatch(/\/admin$/);
  });
});
