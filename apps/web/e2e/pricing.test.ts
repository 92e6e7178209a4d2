/** The admin's Pricing tab and a user's own price, and the pages customers read prices on. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminLogIn, fieldErrors, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let admin: Page;
let customer: Page;
let customerEmail: string;

beforeAll(async () => {
  e2e = await startE2E();
  customer = await e2e.newPage();
  customerEmail = (await signUpAndLogIn(e2e, customer, 'Price Reader')).email;
  admin = await e2e.newPage();
  await adminLogIn(admin);
});
afterAll(async () => {
  await e2e?.close();
});

describe('pricing', () => {
  it('the Pricing tab sets the price, minimum and tiers (with the schema messages); landing and Top Up show them', async () => {
    await admin.getByRole('tab', { name: 'Pricing' }).click();
    expect(await admin.getByTestId('pricing-in-force').innerText()).toContain('$0.90 per GB · Minimum order is 12GB ($10) · smallest order 12 GB for $10.80');
    const form = admin.getByTestId('pricing-form');
    // Entered and shown in dollars.
    expect(await form.getByLabel('Price per GB ($)').inputValue()).toBe('0.90');
    expect(await form.getByLabel('Minimum order ($)').inputValue()).toBe('10.00');
    expect(await form.innerText()).toContain('The smallest order today: 12 GB for $10.80');
    await form.getByLabel('Price per GB ($)').fill('0.95');
    await form.getByLabel('Minimum order ($)').fill('15');
    await form.getByRole('button', { name: 'Add tier' }).click();
    await form.getByLabel('Tier 1: from (GB)').fill('50');
    await form.getByLabel('Tier 1: price per GB ($)').fill('0.99');
    await form.getByRole('button', { name: 'Save prices' }).click();
    await expect.poll(() => fieldErrors(admin)).toContain('Each tier must be cheaper than the one before');
    await form.getByLabel('Tier 1: price per GB ($)').fill('0.80');
    await form.getByRole('button', { name: 'Save prices' }).click();
    await form.getByText('Prices saved:').waitFor();
    await expect
      .poll(() => admin.getByTestId('pricing-in-force').innerText())
      .toContain('$0.95 per GB · Minimum order is 16GB ($15) · $0.80 per GB from 50 GB · smallest order 16 GB for $15.20');
    await screenshots(admin, 'admin-pricing');

    const visitor = await (await e2e.newContext()).newPage();
    await visitor.goto('/');
    await expect.poll(() => visitor.getByTestId('hero-price').innerText()).toContain('$0.95');
    expect(await visitor.locator('body').innerText()).toContain('$0.80 per GB from 50 GB');
    await visitor.goto('/login');
    await expect.poll(() => visitor.locator('.auth-footer').innerText()).toBe('Residential proxies at $0.95/GB');

    await customer.goto('/topup');
    await expect.poll(() => customer.locator('.balance-rate').innerText()).toBe('$0.95 per GB');
    expect(await customer.getByTestId('price-tiers').innerText()).toContain('$0.80');
  });

  it("a user's own price in the admin user detail: dollars, or empty for the price list", async () => {
    await admin.getByRole('tab', { name: /Users/ }).click();
    await admin.getByLabel('Search users').fill(customerEmail);
    await admin.getByRole('button', { name: customerEmail }).click();
    const own = admin.getByTestId('own-price-form');
    await own.waitFor();
    const rate = () =>
      customer.evaluate(async () => ((await (await fetch('/api/pricing')).json()) as { userPricePerGbCents: number | null }).userPricePerGbCents);

    await own.getByLabel('Price per GB ($)').fill('0');
    await own.getByRole('button', { name: 'Save price' }).click();
    await expect.poll(() => fieldErrors(admin)).toContain('Price per GB must be at least 1 cent');
    await own.getByLabel('Price per GB ($)').fill('0.70');
    await own.getByRole('button', { name: 'Save price' }).click();
    await own.getByText('Own price set to $0.70 per GB.').waitFor();
    expect(await rate()).toBe(70);

    await own.getByLabel('Price per GB ($)').fill('');
    await own.getByRole('button', { name: 'Save price' }).click();
    await own.getByText('Own price removed: the price list applies.').waitFor();
    expect(await rate()).toBeNull();
  });
});
