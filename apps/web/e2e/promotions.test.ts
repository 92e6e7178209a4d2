import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminLogIn, INTERNAL_KEY, fieldErrors, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let admin: Page;
let customer: Page;

const balance = (page: Page) => page.getByTestId('balance').innerText();

beforeAll(async () => {
  e2e = await startE2E();
  customer = await e2e.newPage();
  await signUpAndLogIn(e2e, customer, 'Promo Buyer');
  admin = await e2e.newPage();
  await adminLogIn(admin);
});
afterAll(async () => {
  await e2e?.close();
});

describe('promotions', () => {
  it('the Promotions tab creates a credit promotion, lists its uses and stops it', async () => {
    await admin.getByRole('tab', { name: 'Promotions' }).click();
    const form = admin.getByTestId('promotion-form');
    await form.getByLabel('Code').fill('ab');
    await form.getByRole('button', { name: 'Create promotion' }).click();
    expect(await fieldErrors(admin)).toContain('Code must be 4-20 letters A-Z or digits');

    await form.getByLabel('Code').fill('launch2gb');
    await form.getByLabel('Credits (GB)').fill('2');
    await form.getByLabel('Max redemptions').fill('10');
    await form.getByLabel('Campaign').fill('launch');
    await form.getByRole('button', { name: 'Create promotion' }).click();
    const row = admin.getByTestId('promotion-LAUNCH2GB');
    await row.waitFor();
    expect(await row.innerText()).toMatch(/2 GB[\s\S]*0 \/ 10[\s\S]*launch[\s\S]*Active/);
    await screenshots(admin, 'admin-promotions');

    await customer.goto('/topup');
    await customer.getByLabel('Top-up Code').fill('launch2gb');
    await customer.getByRole('button', { name: 'Redeem Code' }).click();
    await expect.poll(() => balance(customer)).toBe('2.00 GB');

    await admin.getByRole('tab', { name: 'Payments' }).click();
    await admin.getByRole('tab', { name: 'Promotions' }).click();
    await expect.poll(() => row.innerText()).toMatch(/1 \/ 10/);
    await row.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => row.innerText()).toContain('Stopped');
  });

  it('the promo field on Top Up shows the bonus before paying, and the order is credited with it', async () => {
    const r = await fetch(`${e2e.server.url}/admin/promotions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_KEY}` },
      body: JSON.stringify({ code: 'PLUS20', kind: 'bonus', bonusPercent: 20, maxRedemptions: 5 }),
    });
    expect(r.status).toBe(200);
    await customer.goto('/topup');
    const promo = customer.getByLabel('Promo code (optional)');
    await promo.fill('NOPE1234');
    await expect.poll(() => customer.getByTestId('promo-bonus').innerText()).toBe('Invalid code. Please check the code and try again.');
    await promo.fill('plus20');
    await expect.poll(() => customer.getByTestId('promo-bonus').innerText()).toBe('Bonus +20%: you receive 14.40 GB for the same price');
    expect(await customer.getByTestId('order-total').innerText()).toBe('$10.80');
    await screenshots(customer, 'topup-promo');
    await customer.getByRole('button', { name: /^Pay \$10\.80 with Crypto$/ }).click();
    await customer.waitForURL('**/sandbox/pay/**');
    await customer.getByTestId('sandbox-pay').click();
    await customer.waitForURL((u) => u.pathname === '/topup' && u.searchParams.get('payment') === 'finished');
    await expect.poll(() => balance(customer)).toBe('16.40 GB');
  });

  it('"Pay part" on the sandbox credits the paid share and Top Up says what is owed', async () => {
    await customer.goto('/topup');
    await customer.getByRole('button', { name: /^Pay \$10\.80 with Crypto$/ }).click();
    await customer.waitForURL('**/sandbox/pay/**');
    await customer.getByTestId('sandbox-paid-usd').fill('5.40');
    await customer.getByTestId('sandbox-pay-part').click();
    await customer.waitForURL((u) => u.pathname === '/topup' && u.searchParams.get('payment') === 'partially_paid');
    await expect
      .poll(() => customer.getByTestId('partial-payment').innerText())
      .toMatch(/^Partially paid: 6\.00 GB credited\. \$5\.40 of \$10\.80 is still owed/);
    await expect.poll(() => balance(customer)).toBe('22.40 GB');
  });
});
