import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;

beforeAll(async () => {
  e2e = await startE2E();
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Alert Tester');
});
afterAll(async () => {
  await e2e?.close();
});

const serverThreshold = () => page.evaluate(async () => ((await (await fetch('/api/alerts')).json()) as { lowBalanceGB: number | null }).lowBalanceGB);

describe('settings: low-balance alert', () => {
  it('sets, shows after reload, refuses a bad amount and turns off', async () => {
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('tab', { name: 'Notifications' }).click();
    const field = page.getByLabel('Alert below (GB)');
    await field.waitFor();
    expect(await field.inputValue()).toBe('');

    await field.fill('0.001');
    await page.getByRole('button', { name: 'Save Alert' }).click();
    await page.getByText('Low balance threshold has at most two decimals').waitFor();
    expect(await serverThreshold()).toBeNull();

    await field.fill('0.01');
    await page.getByRole('button', { name: 'Save Alert' }).click();
    await page.getByText('We will email you below 0.01 GB and at 0 GB.').waitFor();
    expect(await serverThreshold()).toBe(0.01);
    await page.reload();
    await page.getByLabel('Alert below (GB)').waitFor();
    await expect.poll(() => page.getByLabel('Alert below (GB)').inputValue()).toBe('0.01');

    await page.getByLabel('Alert below (GB)').fill('');
    await page.getByRole('button', { name: 'Save Alert' }).click();
    await page.getByText('Low-balance alerts are off.').waitFor();
    expect(await serverThreshold()).toBeNull();
  });

  it('keeps what the user typed when the saved value arrives after it', async () => {
    // The saved threshold answers late: typing before it arrives must not be overwritten.
    await page.route(/\/trpc\/[^?]*alerts\.get/, async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    try {
      await page.reload();
      const field = page.getByLabel('Alert below (GB)');
      await field.fill('0.5');
      await page.waitForResponse(/\/trpc\/[^?]*alerts\.get/);
      await page.waitForTimeout(100);
      expect(await field.inputValue()).toBe('0.5');
      await page.getByRole('button', { name: 'Save Alert' }).click();
      await page.getByText('We will email you below 0.5 GB and at 0 GB.').waitFor();
      expect(await serverThreshold()).toBe(0.5);
    } finally {
      await page.unroute(/\/trpc\/[^?]*alerts\.get/);
    }
  });

  it('usage alert percents: shows the default, saves sorted, refuses a repeated or out-of-range percent', async () => {
    const serverPercents = () =>
      page.evaluate(async () => ((await (await fetch('/api/alerts')).json()) as { usageAlertPercents: number[] }).usageAlertPercents);
    await page.reload();
    const field = page.getByLabel('Usage alerts at (%)');
    await expect.poll(() => field.inputValue()).toBe('80,90');

    await field.fill('80, 80');
    await page.getByRole('button', { name: 'Save Alert' }).click();
    await page.getByText('Usage alert percents must not repeat').waitFor();
    await field.fill('50 150');
    await page.getByRole('button', { name: 'Save Alert' }).click();
    await page.getByText('Usage alert percents must be whole numbers from 1 to 99').waitFor();
    expect(await serverPercents()).toEqual([80, 90]);

    await field.fill('90, 50, 75');
    await page.getByRole('button', { name: 'Save Alert' }).click();
    await page.getByText('Usage alerts at 50, 75, 90 % of a limit.').waitFor();
    expect(await serverPercents()).toEqual([50, 75, 90]);
    await page.reload();
    await expect.poll(() => page.getByLabel('Usage alerts at (%)').inputValue()).toBe('50,75,90');
  });
});
