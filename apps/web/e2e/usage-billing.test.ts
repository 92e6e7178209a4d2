import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { mintCodes, gatewayTraffic, screenshots, startE2EWithUser, type E2E, type SessionUser } from './harness';

let e2e: E2E;
let page: Page;
let user: SessionUser;

beforeAll(async () => ({ e2e, page, user } = await startE2EWithUser('Usage Viewer')));
afterAll(() => e2e?.close());

const GiB = 1024 ** 3;

async function redeemCode(gb: number): Promise<string> {
  const code = (await mintCodes(e2e, gb))[0]!;
  const status = await page.evaluate(
    async (c) =>
      (await fetch('/auth/redeem-code', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: c }) })).status,
    code,
  );
  expect(status).toBe(200);
  return code;
}

/** The account's traffic as a gateway reports it. */
const traffic = (bytesDown: number, country: string) => gatewayTraffic(e2e, user, bytesDown, country);

describe('dashboard usage and billing', () => {
  it('the balance, chart and tables follow traffic without a reload', async () => {
    await redeemCode(2);
    await page.goto('/dashboard');
    await expect.poll(() => page.getByTestId('remaining-data').textContent()).toBe('2.00 GB');
    await page.getByTestId('usage-chart').locator('svg.recharts-surface').first().waitFor();
    expect(await page.getByTestId('usage-by-country').textContent()).toContain('No traffic in this period');

    await traffic(GiB / 2, 'US');
    // No reload: the page re-reads on its own (every 10 s while visible).
    await expect.poll(() => page.getByTestId('remaining-data').textContent(), { timeout: 15_000, interval: 250 }).toBe('1.50 GB');
    await expect.poll(() => page.getByTestId('total-usage').textContent(), { timeout: 15_000 }).toBe('0.50 GB');
    await expect.poll(() => page.getByTestId('usage-by-country').innerText(), { timeout: 15_000 }).toContain('US\t512.00 MB');
    expect(await page.getByTestId('usage-chart').getAttribute('data-total-bytes')).toBe(String(GiB / 2));
    expect(await page.getByTestId('usage-by-account').innerText()).toContain(`Main (${user.proxyUserId})`);

    await traffic(GiB / 4, 'DE');
    await expect.poll(() => page.getByTestId('remaining-data').textContent(), { timeout: 15_000, interval: 250 }).toBe('1.25 GB');
    await expect.poll(() => page.getByTestId('usage-by-country').innerText(), { timeout: 15_000 }).toContain('DE\t256.00 MB');

    await page.getByRole('tab', { name: 'Last 30 days' }).click();
    await expect.poll(() => page.getByTestId('usage-chart').getAttribute('data-total-bytes')).toBe(String((GiB * 3) / 4));
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download CSV' }).click();
    const csv = readFileSync(await (await download).path(), 'utf8');
    expect(csv.split('\n')[0]).toBe('start,bytesUp,bytesDown,sessions,gb (GB = 1073741824 bytes)');
    expect(csv.trim().split('\n')).toHaveLength(31);
    await screenshots(page, 'dashboard-usage');
  });

  it('the Billing page lists codes and orders with their status, and a paid order has a receipt', async () => {
    const code = await redeemCode(1);
    const invoice = await page.evaluate(async () => {
      const r = await fetch('/auth/create-crypto-payment', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ gbAmount: 12, priceUsd: 10.8 }),
      });
      return ((await r.json()) as { invoiceUrl: string }).invoiceUrl;
    });
    await page.getByRole('link', { name: 'Billing', exact: true }).click();
    await page.waitForURL('**/billing');
    const rows = page.getByTestId('billing-row');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.nth(0).innerText()).toMatch(/Crypto payment\tCrypto payment: 12 GB for \$10\.80\tWaiting for payment\t0\.00 GB\tResume payment/);
    expect(await rows.nth(1).innerText()).toContain(`Top-up code ${code}\tCredited\t+1.00 GB`);

    // Pay it in the sandbox, come back: paid, credited, with a receipt.
    await page.goto(invoice);
    await page.getByTestId('sandbox-pay').click();
    await page.waitForURL('**/topup?payment=finished');
    await page.goto('/billing');
    await expect.poll(async () => rows.nth(0).innerText()).toMatch(/Paid\t\+12\.00 GB\tReceipt/);
    const popup = page.waitForEvent('popup');
    await rows.nth(0).getByRole('link', { name: 'Receipt' }).click();
    const receipt = await popup;
    await receipt.waitForLoadState();
    expect(await receipt.getByTestId('receipt-amount').textContent()).toBe('$10.80 USD');
    expect(await receipt.getByTestId('receipt-gb').textContent()).toBe('12.00 GB');
    await receipt.close();
    await screenshots(page, 'billing');
  });
});
