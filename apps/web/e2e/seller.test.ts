/**
 * The seller is named, at 1366x800 and 390x844: the overview warns while the legal pages' fields are
 * the shipped placeholders; an owner sets them in the Site tab (a bad email is refused with the
 * schema's words); then the warning is gone, and the public footer, a legal page, a receipt and a
 * "contact support" message name the seller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SANDBOX_SIGNATURE_HEADER, signSandboxNotification } from '@proxyhub/api';
import { adminLogIn, INTERNAL_KEY, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

const SIZES = [
  { width: 1366, height: 800 },
  { width: 390, height: 844 },
] as const;

let e2e: E2E;
let admin: Page;
let customer: Page;
let customerEmail: string;

async function paidOrder(page: Page): Promise<string> {
  const r = await page.evaluate(async () => {
    const res = await fetch('/auth/create-crypto-payment', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ gbAmount: 12, priceUsd: 10.8 }),
    });
    return (await res.json()) as { invoiceUrl: string };
  });
  const id = r.invoiceUrl.split('/').at(-1)!;
  const body = { order_id: id, payment_id: `sbx-${id.slice(0, 8)}`, payment_status: 'finished', price_amount: 10.8, price_currency: 'usd' };
  const res = await fetch(`${e2e.baseUrl}/webhooks/sandbox`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(e2e.server.config.appSecret, body as never) },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return id;
}

async function saveSeller(page: Page, fields: { company: string; address: string; email: string; updated: string; effective: string }) {
  await page.getByLabel('Company name').fill(fields.company);
  await page.getByLabel('Postal address').fill(fields.address);
  await page.getByLabel('Support email').fill(fields.email);
  await page.getByLabel('Legal pages last updated').fill(fields.updated);
  await page.getByLabel('Legal pages effective from').fill(fields.effective);
  await page.getByRole('button', { name: 'Save seller' }).click();
}

beforeAll(async () => {
  e2e = await startE2E();
  customer = await e2e.newPage();
  customerEmail = (await signUpAndLogIn(e2e, customer, 'Rita Receipt')).email;
  admin = await e2e.newPage();
  await adminLogIn(admin);
});
afterAll(async () => {
  await e2e?.close();
});

describe('the seller', () => {
  it('the overview warns while the legal pages hold placeholders', async () => {
    for (const size of SIZES) {
      await admin.setViewportSize(size);
      await admin.goto('/admin');
      const warning = admin.getByTestId('seller-warning');
      await expect.poll(() => warning.innerText()).toContain('The legal pages still hold placeholders: company name, postal address, support email');
      expect(await warning.innerText()).toContain('Set them in Site.');
    }
  });

  it('an owner sets it in the Site tab; the warning goes', async () => {
    await admin.setViewportSize(SIZES[0]);
    await admin.getByRole('tab', { name: 'Site', exact: true }).click();
    const form = admin.getByTestId('seller-form');
    await form.waitFor();
    await saveSeller(admin, {
      company: 'Bluefin Networks GmbH',
      address: 'Hafenstraße 7\n20457 Hamburg\nGermany',
      email: 'nope',
      updated: '2026-03-01',
      effective: '2026-03-15',
    });
    await expect.poll(() => form.innerText()).toContain('Support email must be an email address');
    await admin.getByLabel('Support email').fill('care@bluefin.example');
    await admin.getByRole('button', { name: 'Save seller' }).click();
    await expect.poll(() => form.innerText()).toContain('Saved: the site, mails and receipts name the seller.');
    await screenshots(admin, 'admin-site-seller');

    // At phone width too: the company's name is changed again and saved.
    await admin.setViewportSize(SIZES[1]);
    await admin.reload();
    await admin.getByRole('tab', { name: 'Site', exact: true }).click();
    await expect.poll(() => admin.getByLabel('Company name').inputValue()).toBe('Bluefin Networks GmbH');
    expect(await admin.getByLabel('Postal address').inputValue()).toBe('Hafenstraße 7\n20457 Hamburg\nGermany');
    await admin.getByLabel('Company name').fill('Bluefin Networks AG');
    await admin.getByRole('button', { name: 'Save seller' }).click();
    await expect.poll(() => admin.getByTestId('seller-form').innerText()).toContain('Saved: the site, mails and receipts name the seller.');

    for (const size of SIZES) {
      await admin.setViewportSize(size);
      await admin.goto('/admin');
      await admin.getByTestId('admin-overview').waitFor();
      expect(await admin.getByTestId('seller-warning').count()).toBe(0);
    }
  });

  it('the footer and a legal page name it', async () => {
    const visitor = await e2e.newPage();
    for (const size of SIZES) {
      await visitor.setViewportSize(size);
      await visitor.goto('/terms');
      const footer = visitor.getByTestId('footer-seller');
      await expect.poll(() => footer.innerText()).toContain('Bluefin Networks AG');
      expect(await footer.getByRole('link', { name: 'care@bluefin.example' }).getAttribute('href')).toBe('mailto:care@bluefin.example');
      const page = visitor.locator('article.prose');
      await expect.poll(() => page.innerText()).toContain('Last updated: 2026-03-01. Effective: 2026-03-15.');
      const text = await page.innerText();
      expect(text).toContain('operated by Bluefin Networks AG');
      expect(text).toContain('Hafenstraße 7\n20457 Hamburg\nGermany');
      expect(await page.getByRole('link', { name: 'care@bluefin.example' }).getAttribute('href')).toBe('mailto:care@bluefin.example');
      expect(text).not.toContain('{{');
    }
    await screenshots(visitor, 'terms-with-seller');
  });

  it('a receipt carries its number, the seller and the buyer', async () => {
    const id = await paidOrder(customer);
    for (const size of SIZES) {
      await customer.setViewportSize(size);
      await customer.goto(`/billing/receipts/${id}`);
      expect(await customer.getByTestId('receipt-number').innerText()).toMatch(/^\d{4}-000001$/);
      const seller = await customer.getByTestId('receipt-seller').innerText();
      expect(seller).toContain('Bluefin Networks AG');
      expect(seller).toContain('Hafenstraße 7\n20457 Hamburg\nGermany');
      expect(seller).toContain('care@bluefin.example');
      const buyer = await customer.getByTestId('receipt-buyer').innerText();
      expect(buyer).toContain('Rita Receipt');
      expect(buyer).toContain(customerEmail);
    }
    await screenshots(customer, 'receipt-with-seller');
  });

  it('"contact support" names the support address', async () => {
    const user = await customer.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { id: string } }).user);
    const suspended = await fetch(`${e2e.baseUrl}/admin/users/${user.id}/suspend`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_KEY}` },
      body: JSON.stringify({ reason: 'seller e2e' }),
    });
    expect(suspended.status).toBe(200);
    const page = await e2e.newPage();
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto('/login');
      await page.getByLabel('Email').fill(customerEmail);
      await page.getByLabel('Password').fill('Secret123');
      await page.getByRole('button', { name: 'Sign In' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'contact support' });
      await expect.poll(() => alert.innerText()).toContain('This account has been disabled. Please contact support at care@bluefin.example.');
      expect(await alert.getByRole('link', { name: 'care@bluefin.example' }).getAttribute('href')).toBe('mailto:care@bluefin.example');
    }
    await screenshots(page, 'login-contact-support');
  });
});
