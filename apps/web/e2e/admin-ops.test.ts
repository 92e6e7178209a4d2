import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, mintCodes, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let admin: Page;
let customer: Page;
let customerEmail: string;

const post = (page: Page, path: string, body: unknown) =>
  page.evaluate(
    async ([p, b]) => {
      const r = await fetch(p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    },
    [path, body] as const,
  );

beforeAll(async () => {
  e2e = await startE2E();
  customer = await e2e.newPage();
  customerEmail = (await signUpAndLogIn(e2e, customer, 'Linus Buyer')).email;
  admin = await e2e.newPage();
  admin.on('dialog', (d) => void d.accept());
  await admin.goto('/admin');
  await admin.getByLabel('Username').fill(ADMIN.username);
  await admin.getByLabel('Password').fill(ADMIN.password);
  await admin.getByRole('button', { name: 'Sign In' }).click();
  await admin.getByRole('heading', { name: 'Admin Panel' }).waitFor();
});
afterAll(async () => {
  await e2e?.close();
});

describe('admin operations', () => {
  it('the overview shows 30 days of traffic and revenue; codes list, filter and revoke', async () => {
    const [redeemed, keep, revoke] = await mintCodes(e2e, 2, 3);
    expect((await post(customer, '/auth/redeem-code', { code: redeemed })).status).toBe(200);
    await admin.reload();
    await admin.getByTestId('admin-overview').waitFor();
    await admin.getByTestId('admin-traffic-chart').locator('svg.recharts-surface').first().waitFor();
    await expect.poll(() => admin.getByTestId('admin-revenue-chart').getAttribute('data-total-cents')).toBe('180');

    await admin.getByRole('tab', { name: 'Codes', exact: true }).click();
    const table = admin.getByTestId('codes-table');
    await expect.poll(() => table.innerText()).toContain(`${customerEmail}`);
    await admin.getByLabel('Code status').selectOption('unused');
    await expect.poll(() => table.innerText()).not.toContain(redeemed!);
    expect(await table.innerText()).toContain(keep!);
    await admin.getByRole('button', { name: `Revoke ${revoke}` }).click();
    await admin.getByLabel('Code status').selectOption('revoked');
    await expect.poll(() => table.innerText()).toContain(revoke!);
    expect((await post(customer, '/auth/redeem-code', { code: revoke })).body.error).toBe('Invalid code. Please check the code and try again.');
    // Not 'admin-codes': that is the Generate Codes tab (credits.test.ts).
    await screenshots(admin, 'admin-code-list');
  });

  it('payments filter by status and by user; admins are added and disabled, never the last one', async () => {
    expect((await post(customer, '/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 })).status).toBe(200);
    await admin.getByRole('tab', { name: 'Payments', exact: true }).click();
    const payments = admin.getByTestId('payments-table');
    await admin.getByLabel('Payment status').selectOption('waiting');
    await admin.getByLabel('Search payments').fill(customerEmail);
    await expect.poll(() => payments.innerText()).toContain('$10.80 · 12 GB');
    expect(await payments.innerText()).toContain('Waiting for payment');
    await admin.getByLabel('Payment status').selectOption('finished');
    await expect.poll(() => payments.innerText()).toContain('No payments found.');

    await admin.getByRole('tab', { name: 'Admins', exact: true }).click();
    const admins = admin.getByTestId('admins-table');
    await admins.waitFor();
    await admin.getByRole('button', { name: 'Add admin' }).click();
    await admin.getByText('Username is required').waitFor();
    await admin.getByLabel('New admin username').fill('support.jane');
    await admin.getByLabel('New admin password').fill('Support-Jane-1');
    await admin.getByRole('button', { name: 'Add admin' }).click();
    await expect.poll(() => admins.innerText()).toContain('support.jane');
    await admin.getByRole('button', { name: 'Disable support.jane' }).click();
    await expect.poll(() => admins.innerText()).toMatch(/support\.jane\t.*\tDisabled/);
    await admin.getByRole('button', { name: `Disable ${ADMIN.username}` }).click();
    await admin.getByText('The last active admin cannot be disabled').waitFor();
    await screenshots(admin, 'admin-admins');

    // The audit log page shows what was done, filterable.
    await admin.getByRole('tab', { name: 'Audit log', exact: true }).click();
    const audit = admin.getByTestId('audit-table');
    // Actions read as words, never a procedure name.
    await expect.poll(() => audit.innerText()).toContain('Admin disabled');
    expect(await audit.innerText()).not.toContain('admin.disableAdmin');
    await admin.getByLabel('Action').selectOption('admin.createAdmin');
    // The filtered page replaces the full one: wait for it, not for a row both contain.
    await expect.poll(() => audit.innerText()).not.toContain('Admin disabled');
    expect(await audit.innerText()).toContain('Admin created');
    expect(await audit.innerText()).toContain('admin:support.jane');
    await screenshots(admin, 'admin-audit');
  });
});
