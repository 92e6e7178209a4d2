/** The admin's Plans tab, and the plans listed beside pay-as-you-go on /pricing and Top Up. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminLogIn, fieldErrors, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let admin: Page;
let customer: Page;

beforeAll(async () => {
  e2e = await startE2E();
  customer = await e2e.newPage();
  await signUpAndLogIn(e2e, customer, 'Plan Reader');
  admin = await e2e.newPage();
  await adminLogIn(admin);
});
afterAll(async () => {
  await e2e?.close();
});

describe('plans', () => {
  it('the Plans tab creates (with the schema messages), edits and deactivates a plan; /pricing and Top Up list the active ones', async () => {
    // No plans yet: neither page shows a plans table.
    await customer.goto('/topup');
    await customer.getByTestId('balance').waitFor();
    expect(await customer.getByTestId('plans').count()).toBe(0);

    await admin.getByRole('tab', { name: 'Plans' }).click();
    const form = admin.getByTestId('plan-form');
    await form.getByLabel('Name').fill('Starter 50');
    await form.getByLabel('GB per period').fill('0');
    await form.getByLabel('Price ($)').fill('5');
    await form.getByRole('button', { name: 'Create plan' }).click();
    await expect.poll(() => fieldErrors(admin)).toEqual(expect.arrayContaining(['GB per period must be at least 1', 'Price must be at least $10.00']));
    await form.getByLabel('GB per period').fill('50');
    await form.getByLabel('Price ($)').fill('35');
    await form.getByLabel('Unused GB').selectOption('yes');
    await form.getByRole('button', { name: 'Create plan' }).click();
    await form.getByText('Plan Starter 50 created.').waitFor();
    await form.getByLabel('Name').fill('Weekly 20');
    await form.getByLabel('GB per period').fill('20');
    await form.getByLabel('Price ($)').fill('16');
    await form.getByLabel('Period', { exact: true }).selectOption('week');
    await form.getByRole('button', { name: 'Create plan' }).click();
    await form.getByText('Plan Weekly 20 created.').waitFor();
    const table = admin.getByTestId('plans-table');
    await expect.poll(() => table.locator('[data-plan="Starter 50"]').innerText()).toMatch(/50 GB a month\s+\$35\.00\s+\$0\.70\s+Roll over once\s+Active/);
    await screenshots(admin, 'admin-plans');

    // Edit: the price; the per-GB figure follows.
    await table.locator('[data-plan="Starter 50"]').getByRole('button', { name: 'Edit' }).click();
    const edit = admin.getByTestId('plan-form');
    await edit.getByLabel('Price ($)').fill('30');
    await edit.getByRole('button', { name: 'Save plan' }).click();
    await expect.poll(() => table.locator('[data-plan="Starter 50"]').innerText()).toMatch(/\$30\.00\s+\$0\.60/);

    // Listed beside pay-as-you-go, cheapest first, with the price per GB each works out to.
    const visitor = await (await e2e.newContext()).newPage();
    await visitor.goto('/pricing');
    const plans = visitor.getByTestId('plans');
    await plans.waitFor();
    expect(await plans.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^Pay as you go\s+What you buy, never expires\s+-\s+\$0\.90/),
      expect.stringMatching(/^Weekly 20\s+20 GB a week\s+\$16\.00 a week\s+\$0\.80\s+Expire at the end of the week/),
      expect.stringMatching(/^Starter 50\s+50 GB a month\s+\$30\.00 a month\s+\$0\.60\s+Carried into the next period once/),
    ]);
    await screenshots(visitor, 'pricing-plans');

    // Deactivated: gone from the customer's pages.
    await table.locator('[data-plan="Weekly 20"]').getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(() => table.locator('[data-plan="Weekly 20"]').innerText()).toContain('Inactive');
    await customer.reload();
    await expect.poll(async () => (await customer.getByTestId('plans').count()) > 0 && customer.getByTestId('plans').innerText()).toContain('Starter 50');
    expect(await customer.getByTestId('plans').innerText()).not.toContain('Weekly 20');
  });
});
