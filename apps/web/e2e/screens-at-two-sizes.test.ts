/**
 * What a person sees at 1366x800 and 390x844: Create Account, Pay with Crypto and Generate Codes are
 * disabled while their request runs (the request held by the test); a part-paid order's row in
 * Billing links to paying the rest; the allow-list says what a typed range was saved as; byte
 * figures under 1 MB read in KB (and in bytes under 1 KB). Nothing is wider than the screen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { payments } from '@proxyhub/db';
import { addCredits } from '@proxyhub/testing';
import { STRONG_PASSWORD, adminLogIn, gatewayTraffic, holdCalls, screenshots, startE2EWithUser, uniqueEmail, type E2E, type SessionUser } from './harness';

const SIZES = [
  { name: 'desktop', width: 1366, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

let e2e: E2E;
let page: Page;
let user: SessionUser;

beforeAll(async () => ({ e2e, page, user } = await startE2EWithUser('Two Sizes')));
afterAll(() => e2e?.close());

const fits = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** Clicks `button` with `procedure`'s calls held: it must be disabled while the request runs; then lets the request through. */
async function disabledWhileRunning(p: Page, procedure: string, button: ReturnType<Page['getByRole']>) {
  const release = await holdCalls(p, procedure);
  const sent = p.waitForRequest((r) => r.url().includes(`/trpc/${procedure}`), { timeout: 30_000 });
  await button.click();
  await sent;
  expect({ procedure, disabled: await button.isDisabled() }).toEqual({ procedure, disabled: true });
  expect(await button.getAttribute('aria-busy')).toBe('true');
  release();
}

describe('buttons are disabled while their request runs', () => {
  for (const size of SIZES) {
    it(`Create Account, Pay with Crypto, Generate Codes at ${size.width}x${size.height}`, async () => {
      const visitor = await e2e.newPage();
      await visitor.setViewportSize(size);
      await visitor.goto('/login?mode=register');
      await visitor.getByLabel('Full Name').fill('Busy Button');
      await visitor.getByLabel('Email').fill(uniqueEmail('busy'));
      await visitor.getByLabel('Password').fill(STRONG_PASSWORD);
      await disabledWhileRunning(visitor, 'auth.register', visitor.getByRole('button', { name: 'Create Account' }).last());
      await visitor.getByRole('heading', { name: 'Check Your Email' }).waitFor();
      await visitor.close();

      await page.setViewportSize(size);
      await page.goto('/topup');
      await disabledWhileRunning(page, 'credits.createCryptoPayment', page.getByRole('button', { name: /^Pay \$10\.80 with Crypto$/ }));
      await page.waitForURL(/\/sandbox\/pay\//);

      const admin = await e2e.newPage();
      await admin.setViewportSize(size);
      await adminLogIn(admin);
      await admin.getByRole('tab', { name: 'Generate Codes' }).click();
      await disabledWhileRunning(admin, 'admin.createCodes', admin.getByRole('button', { name: 'Generate Codes', exact: true }));
      await admin.getByTestId('code-list').locator('li').first().waitFor();
      await admin.close();
    });
  }
});

describe('a part-paid order', () => {
  it('Billing links it to paying the rest, at 1366x800 and 390x844', async () => {
    await page.setViewportSize(SIZES[0]);
    await page.goto('/topup');
    await page.getByRole('button', { name: /^Pay \$10\.80 with Crypto$/ }).click();
    await page.waitForURL(/\/sandbox\/pay\//);
    const invoice = page.url();
    await page.getByTestId('sandbox-paid-usd').fill('5.40');
    await page.getByTestId('sandbox-pay-part').click();
    await page.waitForURL((u) => u.pathname === '/topup' && u.searchParams.get('payment') === 'partially_paid');
    const order = (await e2e.server.deps.db.select().from(payments)).find((p) => p.invoiceUrl === invoice);
    expect(order?.status).toBe('partially_paid');
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto('/billing');
      const row = page.getByTestId('billing-row').filter({ hasText: 'Partially paid' });
      const rest = row.getByRole('link', { name: 'Pay the rest' });
      await rest.waitFor();
      expect(await rest.isVisible()).toBe(true);
      expect(await rest.getAttribute('href')).toBe(invoice);
      // Part of it is paid: the order is no longer cancellable, only payable.
      expect(await row.getByRole('button', { name: /^Cancel order / }).count()).toBe(0);
      expect(await fits(page)).toBe(true);
    }
    await screenshots(page, 'billing-part-paid');
    await page.getByTestId('billing-row').filter({ hasText: 'Partially paid' }).getByRole('link', { name: 'Pay the rest' }).click();
    await page.waitForURL(invoice);
    await page.getByTestId('sandbox-pay-part').waitFor();
  });
});

describe('the allow-list says what a range was saved as', () => {
  it('"192.168.1.7/16 was saved as 192.168.0.0/16" at 1366x800 and 390x844', async () => {
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto('/api?section=api');
      const field = page.getByLabel('Address or range');
      await field.fill('192.168.1.7/16');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      const message = page.getByText('Allow-list saved: 192.168.0.0/16 added. 192.168.1.7/16 was saved as 192.168.0.0/16.', { exact: false });
      await message.waitFor();
      expect(await message.isVisible()).toBe(true);
      const box = await message.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(size.width);
      expect(await fits(page)).toBe(true);
      if (size.name === 'phone') await screenshots(page, 'allowlist-saved-as');
      await page.setViewportSize(size);
      await page.getByRole('button', { name: 'Remove 192.168.0.0/16' }).click();
      await page.getByText('Allow-list saved: 192.168.0.0/16 removed.').waitFor();
    }
  });
});

describe('small byte figures', () => {
  it('under 1 KB in bytes, under 1 MB in KB, at 1366x800 and 390x844', async () => {
    await addCredits(e2e.server, user.id, 1n << 30n);
    await gatewayTraffic(e2e, user, 600, 'US');
    await gatewayTraffic(e2e, user, 3 * 1024, 'DE');
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto('/dashboard');
      const byCountry = page.getByTestId('usage-by-country');
      // On a phone each row is a card: the figure follows its country's name on its own line. No
      // connection records: no success rate or connect time (a dash each).
      await expect
        .poll(() => byCountry.locator('tbody tr').allInnerTexts(), { timeout: 15_000 })
        .toEqual(expect.arrayContaining([expect.stringMatching(/^DE\s+3\.00 KB\s+–\s+–$/), expect.stringMatching(/^US\s+600 bytes\s+–\s+–$/)]));
      expect(await fits(page)).toBe(true);
    }
  });
});
