/**
 * The admin's Catalogue tab in Chromium: the default countries ticked, a search that narrows the
 * dataset's ~250 countries, a country ticked and one unticked, saved; the API and the customer's
 * location list agree after it, and a customer's generator starts on a country offered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminLogIn, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let admin: Page;

beforeAll(async () => {
  e2e = await startE2E();
  admin = await e2e.newPage();
  await adminLogIn(admin);
});
afterAll(async () => {
  await e2e?.close();
});

describe('admin catalogue', () => {
  it('searches, ticks and saves the countries sold', async () => {
    await admin.getByRole('tab', { name: 'Catalogue', exact: true }).click();
    const form = admin.getByTestId('catalogue-form');
    await form.waitFor();
    expect(await admin.getByRole('heading', { name: /^Catalogue \(15 of \d{3} countries\)$/ }).count()).toBe(1);
    const boxes = admin.getByTestId('catalogue-countries').getByRole('checkbox');
    expect(await boxes.count()).toBeGreaterThanOrEqual(240);
    expect(await admin.getByRole('checkbox', { name: /^Germany DE$/ }).isChecked()).toBe(true);

    await admin.getByLabel('Search countries').fill('portu');
    await expect.poll(() => boxes.count()).toBe(1);
    const portugal = admin.getByRole('checkbox', { name: /^Portugal PT$/ });
    expect(await portugal.isChecked()).toBe(false);
    await portugal.check();
    await admin.getByLabel('Search countries').fill('germany');
    await expect.poll(() => boxes.count()).toBe(1);
    await admin.getByRole('checkbox', { name: /^Germany DE$/ }).uncheck();
    await admin.getByLabel('Search countries').fill('nowhere-land');
    expect(await admin.getByTestId('catalogue-countries').innerText()).toContain('No country matches');
    await admin.getByLabel('Search countries').fill('');
    await admin.getByRole('button', { name: 'Save catalogue' }).click();
    await admin.getByText('Saved: 15 countries in the catalogue.').waitFor();
    await screenshots(admin, 'admin-catalogue');

    const saved = await e2e.internal.admin.catalogue.query();
    expect(saved.countries).toContain('PT');
    expect(saved.countries).not.toContain('DE');
    expect(saved.countries).toHaveLength(15);
    const listed = await admin.evaluate(async () => ((await (await fetch('/api/locations/countries')).json()) as { countries: { code: string }[] }).countries);
    expect(listed.map((c) => c.code)).toContain('PT');
    expect(listed.map((c) => c.code)).not.toContain('DE');

    // A fresh load shows what was saved.
    await admin.reload();
    await admin.getByRole('tab', { name: 'Catalogue', exact: true }).click();
    await admin.getByTestId('catalogue-form').waitFor();
    expect(await admin.getByRole('checkbox', { name: /^Portugal PT$/ }).isChecked()).toBe(true);
    expect(await admin.getByRole('checkbox', { name: /^Germany DE$/ }).isChecked()).toBe(false);
  });

  it("starts a customer's generator on the first country offered when the default (US) is not", async () => {
    await e2e.internal.admin.setCatalogue.mutate({ countries: ['PT', 'NG'] });
    const customer = await e2e.newPage();
    await signUpAndLogIn(e2e, customer, 'Catalogue Customer');
    await customer.getByRole('link', { name: 'Proxies', exact: true }).click();
    await customer.getByRole('heading', { name: 'Generate Proxies' }).waitFor();
    const country = customer.getByLabel('Country');
    await expect.poll(() => country.inputValue()).toBe('NG');
    expect(await country.locator('option').allInnerTexts()).toEqual(['Nigeria', 'Portugal']);
    await customer.getByLabel('Number of Proxies').fill('2');
    await customer.getByRole('button', { name: 'Generate Proxies' }).click();
    await customer.getByTestId('generated-count').filter({ hasText: '2 proxies generated · Nigeria' }).waitFor();
    expect(await customer.getByTestId('proxy-output').getByRole('listitem').allInnerTexts()).toHaveLength(2);
  });
});
